import { readFileSync } from 'node:fs';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { erasureSteps } from '../../../src/db/user-erasures.ts';
import { type PushFakes, startPushFakes } from '../../../src/dev/push-fakes/index.ts';
import { privacyStream } from '../../../src/events/privacy.ts';
import { allProjections } from '../../../src/projections/index.ts';
import { adminCall } from '../../support/admin.ts';
import { TEST_SECRETS, useRunningApp } from '../../support/app.ts';
import { clientApi, requireSandbox } from '../../support/chat.ts';
import { userHeaders } from '../../support/comments.ts';
import { databaseText } from '../../support/database-text.ts';
import { eventually } from '../../support/eventually.ts';
import {
  ADA,
  ADA_TELEMETRY,
  ADA_VALUES,
  BEN,
  BEN_VALUES,
  exportOf,
  expectStatus,
  makePrivacyDataSet,
  OTHER_ROLES,
  type PrivacyDataSet,
  settledExportOfAda,
} from '../../support/privacy.ts';
import { spawnService } from '../../support/process.ts';
import { expectRebuildEqualsLive } from '../../support/rebuild.ts';
import { useRecordedStorage } from '../../support/storage.ts';

// POST /admin/users/:userId/erasure (issue 37, decision 048), end to end: the data set of
// test/support/privacy.ts, a push to Ada's devices and a picture comment of hers, then the owner erases
// her through the running service, whose erasure job does it. Nothing of hers may be left anywhere, and
// everything of Ben's must be.

let fakes: PushFakes | undefined;
beforeAll(async () => {
  fakes = await startPushFakes({ fcm: { record: true } });
});
afterAll(async () => {
  await fakes?.close();
});
const recorded = useRecordedStorage();
const used = useRunningApp({
  jobs: true,
  get env() {
    return { ...fakes?.env };
  },
  get storage() {
    return recorded.storage;
  },
});
const url = () => used.running.url;
const api = clientApi(url);
const sandbox = () => requireSandbox(used.running.support.sandbox);

const PICTURE_COMMENT = 'ada-picture-1e9a: my screen, look';
const CAI = 'cai-privacy';

const erasureSchema = z.object({
  erasureId: z.uuid(),
  userId: z.string(),
  requestedBy: z.string(),
  requestedAt: z.string(),
  steps: z.array(z.object({ step: z.enum(erasureSteps), doneAt: z.string().nullable() })),
  finishedAt: z.string().nullable(),
  attempts: z.number(),
  lastError: z.string().nullable(),
});
type Erasure = z.infer<typeof erasureSchema>;

let made: PrivacyDataSet;
/** What was there before the erasure, to look for afterwards. */
const before = {
  databaseText: '',
  /** Whether pg-boss's jobs named her chat id: the push to her went through the queue. */
  queueHeldChatId: false,
  hardwareIdDigest: '',
  helpPostId: '',
  pictureCommentId: '',
  /** Signed links: the complaint's attachment (Ada's upload) and her comment's picture. */
  fileLink: '',
  pictureLink: '',
  /** Storage keys of Ada's upload, her picture and Ben's upload. */
  keys: { file: '', picture: '', benFile: '' },
  csatCount: 0,
  complaintCount: 0,
};
let requested: { status: number; body: Erasure };
let finished: Erasure;

const asOwner = (method: string, path: string, body?: unknown) =>
  adminCall(url(), made.owner, method, path, body);
const erasurePath = (userId: string) => `/admin/users/${encodeURIComponent(userId)}/erasure`;
const erasureOf = async (userId: string) =>
  erasureSchema.parse(await expectStatus(asOwner('GET', erasurePath(userId))));
/** Every personal value of Ada's the data set and this file gave the service. */
const adaValues = () => [
  ...Object.values(ADA_VALUES),
  PICTURE_COMMENT,
  ADA_TELEMETRY.hardwareId,
  before.hardwareIdDigest,
];
const exportBody = async (userId: string) => {
  const res = await exportOf(url(), made.owner, userId);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};

type ShownComment = { id: string; text: string; author: { userId: string }; mine: boolean; erased?: true };
type ShownPost = { commentCount: number; viewCount: number; reactions: { counts: Record<string, number> } };

async function threadAs(user: string, channelId: string, postId: string): Promise<ShownComment[]> {
  const page = await expectStatus<{ items: ShownComment[] }>(
    api.get(user, `/channel/${channelId}/posts/${postId}/comments`),
  );
  return page.items;
}

const userErasedEvents = () =>
  used.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM events
    WHERE stream_name = ${privacyStream(ADA)} AND event_type = 'userErased'`);

const erasureRows = () =>
  used.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM user_erasures`);

const keyOf = (table: 'files' | 'comment_attachments', column: 'id' | 'comment_id', id: string) =>
  used.db.pool.oneFirst(sql.type(z.object({ storage_key: z.string() }))`
    SELECT storage_key FROM ${sql.identifier([table])} WHERE ${sql.identifier([column])} = ${id}`);

/** The data set's post in the channel Ada moderates, once its push reached both of her devices. */
async function pushedHelpPost(): Promise<string> {
  await eventually(
    async () => ({
      fcm: fakes?.fcm.received().map((m) => m.token) ?? [],
      chats: fakes?.telegram.received().map((m) => m.chatId) ?? [],
    }),
    ({ fcm, chats }) => fcm.includes(ADA_VALUES.token) && chats.includes(ADA_VALUES.chatId),
    10_000,
  );
  return made.helpPostId;
}

/** Ada's comment with a picture, under the post in the channel she moderates. */
async function pictureComment(postId: string): Promise<{ id: string; link: string }> {
  const png = readFileSync(new URL('../../fixtures/files/python.png', import.meta.url));
  const form = new FormData();
  form.append('text', PICTURE_COMMENT);
  form.append('image', new Blob([png], { type: 'image/png' }), 'shot.png');
  const res = await fetch(`${url()}/api/channel/${made.moderatedChannelId}/posts/${postId}/comments`, {
    method: 'POST',
    headers: userHeaders(ADA),
    body: form,
  });
  expect(res.status).toBe(201);
  const body = z.object({ id: z.string(), image: z.object({ url: z.string() }) }).parse(await res.json());
  return { id: body.id, link: `${url()}${body.image.url}` };
}

const complaintLink = async (): Promise<string> => {
  const list = await expectStatus<{ items: { id: string }[] }>(asOwner('GET', '/admin/complaints'));
  const detail = await expectStatus<{ attachments: { url: string }[] }>(
    asOwner('GET', `/admin/complaints/${list.items[0]?.id ?? ''}`),
  );
  return detail.attachments[0]?.url ?? '';
};

const csatList = () =>
  expectStatus<{ count: number; average: number | null; items: Record<string, unknown>[] }>(
    asOwner('GET', '/admin/csat'),
  );

/** Asks for Ada's erasure, then follows it with GET until the job finished it. */
async function eraseAdaAndFollow(): Promise<void> {
  const answer = await asOwner('POST', erasurePath(ADA));
  requested = { status: answer.status, body: erasureSchema.parse(answer.body) };
  finished = await eventually(
    () => erasureOf(ADA),
    (e) => e.finishedAt !== null,
    30_000,
  );
  await projectionsCaughtUp();
}

/** The job waits for the devices table only; every other read table forgets her in its own time. */
async function projectionsCaughtUp(): Promise<void> {
  const { store, waiter } = used.running.eventSourcing;
  for (const { name, categories } of allProjections) {
    expect(await waiter.waitFor([name], await store.headPosition(categories), 10_000), name).toBe(true);
  }
}

/** Adds to the data set what only this file needs, and notes what is there, to look for afterwards. */
async function recordBefore(): Promise<void> {
  const exported = await settledExportOfAda(url(), made.owner);
  const devices = exported.devices as { telemetry: { hardwareIdDigest: string | null } }[];
  before.hardwareIdDigest = devices[0]?.telemetry.hardwareIdDigest ?? '';
  before.helpPostId = await pushedHelpPost();
  const picture = await pictureComment(before.helpPostId);
  before.pictureCommentId = picture.id;
  before.pictureLink = picture.link;
  before.fileLink = await complaintLink();
  for (const link of [before.fileLink, before.pictureLink])
    expect((await fetch(link)).status, link).toBe(200);
  before.keys = {
    file: await keyOf('files', 'id', made.fileId),
    picture: await keyOf('comment_attachments', 'comment_id', picture.id),
    benFile: await keyOf('files', 'id', made.benFileId),
  };
  before.csatCount = (await csatList()).count;
  before.complaintCount = (
    await expectStatus<{ items: unknown[] }>(asOwner('GET', '/admin/complaints'))
  ).items.length;
  before.databaseText = await databaseText(used.db.pool);
  before.queueHeldChatId = await used.db.pool.exists(sql.unsafe`
    SELECT 1 FROM pgboss.job WHERE data::text LIKE ${`%${ADA_VALUES.chatId}%`}`);
}

beforeAll(async () => {
  made = await makePrivacyDataSet(used);
  await recordBefore();
  await eraseAdaAndFollow();
});

describe('POST and GET /admin/users/:userId/erasure', () => {
  it('answers the owner 202 with the erasure to come; GET follows it until every step is done', () => {
    expect(requested.status).toBe(202);
    expect(requested.body).toEqual({
      erasureId: expect.any(String) as unknown,
      userId: ADA,
      requestedBy: made.ownerId,
      requestedAt: expect.any(String) as unknown,
      steps: erasureSteps.map((step) => ({ step, doneAt: null })),
      finishedAt: null,
      attempts: 0,
      lastError: null,
    });
    expect(finished).toMatchObject({ erasureId: requested.body.erasureId, attempts: 0, lastError: null });
    expect(finished.steps.map((s) => s.step)).toEqual([...erasureSteps]);
    const done = finished.steps.map((s) => s.doneAt ?? '');
    expect(done.every((at) => at !== '')).toBe(true);
    expect([...done].sort()).toEqual(done);
  });

  it('answers 404 for a user no erasure was asked for', async () => {
    const res = await asOwner('GET', erasurePath('never-erased'));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});

describe('what the erasure leaves in the database', () => {
  it("holds none of Ada's values in any table (events, pg-boss, push log, read tables, audit)", async () => {
    // The same search found them before: it looks where they were, pg-boss's queue among them.
    expect(before.queueHeldChatId).toBe(true);
    for (const value of [ADA_VALUES.token, ADA_VALUES.chatId, ADA_VALUES.comment, before.hardwareIdDigest]) {
      expect(before.databaseText, value).toContain(value);
    }
    const text = await databaseText(used.db.pool);
    for (const value of adaValues()) expect(text, value).not.toContain(value);
  });

  it("keeps Ben's comment, shown through the client API, and his device", async () => {
    const ben = await exportBody(BEN);
    expect(ben.devices).toEqual([expect.objectContaining({ token: '…c3d4', platform: 'mobile' })]);
    const text = await databaseText(used.db.pool);
    expect(text).toContain(BEN_VALUES.token);
    const comments = await threadAs(BEN, made.channelId, made.postId);
    expect(comments.find((c) => c.id === made.benCommentId)).toMatchObject({
      text: BEN_VALUES.comment,
      author: { userId: BEN },
      mine: true,
    });
  });
});

describe('what readers see of her comments, and the counts', () => {
  it("shows her comments erased: in place, empty, nobody's, without a picture", async () => {
    const thread = await eventually(
      () => threadAs(BEN, made.channelId, made.postId),
      (items) => items.some((c) => c.erased === true),
    );
    expect(thread.find((c) => c.id === made.adaCommentId)).toEqual(
      expect.objectContaining({
        text: '',
        author: { userId: '', isModerator: false },
        mine: false,
        erased: true,
      }),
    );
    const help = await threadAs(BEN, made.moderatedChannelId, before.helpPostId);
    const picture = help.find((c) => c.id === before.pictureCommentId);
    expect(picture).toMatchObject({ text: '', erased: true });
    expect(picture).not.toHaveProperty('image');
  });

  it('keeps the comment, view and reaction counts of the posts', async () => {
    const post = await expectStatus<ShownPost>(
      api.get(BEN, `/channel/${made.channelId}/posts/${made.postId}`),
    );
    expect(post).toMatchObject({
      commentCount: 2,
      viewCount: 2,
      reactions: { counts: { '👍': 1, '🔥': 1 } },
    });
    const help = await expectStatus<ShownPost>(
      api.get(BEN, `/channel/${made.moderatedChannelId}/posts/${before.helpPostId}`),
    );
    expect(help.commentCount).toBe(1);
  });

  it('keeps her CSAT rating and complaint in the analytics and lists, without her', async () => {
    const csat = await csatList();
    expect(csat).toMatchObject({ count: before.csatCount, average: 4 });
    expect(csat.items).toEqual([expect.objectContaining({ userId: null, comment: null, rating: 4 })]);
    const analytics = await expectStatus<{ count: number; average: number }>(
      asOwner('GET', '/admin/analytics/csat'),
    );
    expect(analytics).toMatchObject({ count: before.csatCount, average: 4 });
    const complaints = await expectStatus<{ items: { id: string; userId: string | null }[] }>(
      asOwner('GET', '/admin/complaints'),
    );
    expect(complaints.items).toHaveLength(before.complaintCount);
    expect(complaints.items[0]?.userId).toBeNull();
    const detail = await expectStatus<Record<string, unknown>>(
      asOwner('GET', `/admin/complaints/${complaints.items[0]?.id ?? ''}`),
    );
    expect(detail).toMatchObject({ text: null, attachments: [] });
  });
});

describe('what the erasure removes outside the read tables', () => {
  it('deletes her contact at Intercom (the sandbox)', () => {
    const contacts = [...sandbox().state.contacts.values()];
    expect(made.contactId).not.toBe('');
    expect(contacts.find((c) => c.id === made.contactId || c.externalId === ADA)).toBeUndefined();
  });

  it('deletes her upload and picture in storage and the upload row; their links serve nothing', async () => {
    const keys = await recorded.keys();
    expect(keys).not.toContain(before.keys.file);
    expect(keys).not.toContain(before.keys.picture);
    expect(keys).toContain(before.keys.benFile);
    const rows = await used.db.pool.anyFirst(sql.type(z.object({ id: z.string() }))`
      SELECT id FROM files WHERE id IN (${made.fileId}, ${made.benFileId})`);
    expect(rows).toEqual([made.benFileId]);
    // They served the bytes before (beforeAll); an unknown file is the same 403 as a bad link, by design.
    for (const link of [before.fileLink, before.pictureLink]) {
      const res = await fetch(link);
      expect(res.status, link).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });
});

describe('a full rebuild of every projection after the erasure', () => {
  it('gives the same read rows, and still none of her values', async () => {
    const live: string[] = [];
    for (const projection of allProjections) {
      live.push(...(await expectRebuildEqualsLive(used, projection)).flat());
    }
    // Not a comparison of empty tables: Ben's rows are there, before and after.
    expect(live.join('\n')).toContain(BEN_VALUES.comment);
    const text = await databaseText(used.db.pool);
    for (const value of adaValues()) expect(text, value).not.toContain(value);
  });
});

describe('erasing twice', () => {
  it('is one erasure: the same erasure answers, and no second userErased is appended', async () => {
    expect(await userErasedEvents()).toBe(1);
    const again = await asOwner('POST', erasurePath(ADA));
    expect(again.status).toBe(202);
    expect(erasureSchema.parse(again.body)).toEqual(finished);
    // The job had its chance to act on anything new.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await erasureOf(ADA)).toEqual(finished);
    expect(await userErasedEvents()).toBe(1);
  });
});

describe('who may erase', () => {
  it.each(OTHER_ROLES)('refuses the %s with 403 on POST and GET', async (role) => {
    const rows = await erasureRows();
    for (const method of ['POST', 'GET']) {
      const res = await adminCall(url(), made.tokens.get(role) ?? '', method, erasurePath(BEN));
      expect(res.status, method).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect(await erasureRows()).toBe(rows);
  });

  it('refuses a user id with a control character with 400 problem+json, and records nothing', async () => {
    const rows = await erasureRows();
    for (const method of ['POST', 'GET']) {
      const res = await asOwner(method, '/admin/users/ben%07/erasure');
      expect(res.status, method).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
    }
    expect(await erasureRows()).toBe(rows);
  });
});

describe('the audit log', () => {
  it('has a users.erase row naming the user, and no personal value', async () => {
    const log = await expectStatus<{ items: Record<string, unknown>[] }>(
      asOwner('GET', `/admin/audit-log?action=users.erase&targetId=${ADA}`),
    );
    expect(log.items).toContainEqual(
      expect.objectContaining({
        action: 'users.erase',
        target: { type: 'user', id: ADA },
        outcome: 'success',
        statusCode: 202,
        detail: { created: true },
      }),
    );
    const rows = await used.db.pool.anyFirst(sql.type(z.object({ row: z.string() }))`
      SELECT to_jsonb(l)::text AS row FROM admin_logs l WHERE action = 'users.erase'`);
    const text = rows.join('\n');
    expect(text).toContain(ADA);
    for (const value of adaValues()) expect(text, value).not.toContain(value);
  });
});

describe('the logs of the run', () => {
  it('record the erasure and none of her values', () => {
    const logs = used.running.logs.text;
    expect(logs).toContain('user erased');
    for (const value of adaValues()) expect(logs, value).not.toContain(value);
  });
});

describe('a later request from the same host user id', () => {
  const NEW_TOKEN = 'fcm-ada-new-token-5a0c2e9d7f1b-e5f6';

  it('starts a new, empty user: a new device alone, no ban, no old comment of hers', async () => {
    await expectStatus(api.post(ADA, '/devices/register', { platform: 'mobile', token: NEW_TOKEN }));
    const exported = await exportBody(ADA);
    expect(exported.devices).toEqual([expect.objectContaining({ token: '…e5f6', platform: 'mobile' })]);
    expect(exported).toMatchObject({
      comments: [],
      bans: [],
      moderatorRoles: [],
      moderationHistory: [],
      pushes: [],
      conversationReads: [],
      ticketReads: [],
      reports: [],
      csatRatings: [],
      complaints: [],
      files: [],
      notificationSettings: null,
      supportContact: null,
    });
    const fresh = await expectStatus<{ id: string }>(
      api.post(ADA, `/channel/${made.channelId}/posts/${made.postId}/comments`, { text: 'hello again' }),
      201,
    );
    const thread = await eventually(
      () => threadAs(ADA, made.channelId, made.postId),
      (items) => items.some((c) => c.id === fresh.id),
    );
    expect(thread.filter((c) => c.mine).map((c) => c.id)).toEqual([fresh.id]);
    expect(thread.find((c) => c.id === made.adaCommentId)).toMatchObject({ erased: true, mine: false });
  });
});

describe('npm run cli -- users erase', () => {
  const cli = (...args: string[]) =>
    spawnService(process.execPath, ['src/cli.ts', 'users', ...args], {
      ...TEST_SECRETS,
      DATABASE_URL: used.db.url,
      LOG_LEVEL: 'warn',
    });

  it("asks for the erasure, prints its progress and ends once the service's job finished it", async () => {
    await expectStatus(api.post(CAI, '/devices/register', { platform: 'tma', token: '424242424242' }));
    const erase = cli('erase', CAI);
    expect(await erase.exited, erase.output()).toBe(0);
    const lines = erase.stdout().trim().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(`^asked for: erasure [0-9a-f-]{36} of ${CAI}: 0/${erasureSteps.length} steps \\[\\]$`),
    );
    expect(lines.at(-1)).toMatch(new RegExp(`: finished \\S+ \\[${erasureSteps.join(', ')}\\]$`));
    const erasureId = /erasure ([0-9a-f-]{36})/.exec(lines[0] ?? '')?.[1];
    expect(await erasureOf(CAI)).toMatchObject({
      erasureId,
      requestedBy: 'cli',
      finishedAt: expect.any(String) as unknown,
    });
    expect((await exportBody(CAI)).devices).toEqual([]);

    const state = cli('erasure', CAI);
    expect(await state.exited, state.output()).toBe(0);
    expect(state.stdout()).toMatch(new RegExp(`^erasure ${erasureId ?? ''} of ${CAI}: finished `));
  }, 40_000);
});
