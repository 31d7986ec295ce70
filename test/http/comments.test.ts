import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { commentsProjection } from '../../src/projections/comments.ts';
import { moderationProjection } from '../../src/projections/moderation.ts';
import { createPostingContextLookup } from '../../src/queries/comments.ts';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { useRunningApp } from '../support/app.ts';
import { commentAs, openReportOf, reportComment, userHeaders } from '../support/comments.ts';
import { databaseText } from '../support/database-text.ts';
import { eventually } from '../support/eventually.ts';
import { type PostStep, postThrough } from '../support/posts.ts';
import { expectRebuildEqualsLive } from '../support/rebuild.ts';
import { useRecordedStorage } from '../support/storage.ts';
import { expectPollInterval } from '../support/poll-interval.ts';

// Its own storage, created before the app, so a test can see what was written.
const recorded = useRecordedStorage();
const used = useRunningApp({
  env: { POLL_COMMENTS_MS: '5000' },
  get storage() {
    return recorded.storage;
  },
});
const url = () => used.running.url;
let admin = '';
let channelId = '';

beforeAll(async () => {
  admin = await loginToken(url(), await createTestAdmin(used.db.pool, 'owner'));
  const made = await adminCall(url(), admin, 'POST', '/admin/channels', { title: 'Talk' });
  channelId = (made.body as { id: string }).id;
});

const publishedPost = (steps: readonly PostStep[] = ['publish'], draft?: Record<string, unknown>) =>
  postThrough(url(), admin, channelId, steps, draft);
const commentsUrl = (postId: string) => `${url()}/api/channel/${channelId}/posts/${postId}/comments`;

interface Comment {
  id: string;
  text?: string;
  status: string;
  mine?: boolean;
  author?: { userId: string; isModerator: boolean };
  image?: { url: string; width?: number; height?: number };
}
interface Page {
  items: Comment[];
  nextCursor: string;
}
const poll = async (postId: string, userId: string, query = '', etag?: string) => {
  const res = await fetch(`${commentsUrl(postId)}${query}`, {
    headers: { ...userHeaders(userId), ...(etag ? { 'if-none-match': etag } : {}) },
  });
  return { res, page: res.status === 200 ? ((await res.json()) as Page) : null };
};
const assignModerator = async (userId: string) => {
  const res = await adminCall(url(), admin, 'PUT', `/admin/channels/${channelId}/moderators/${userId}`);
  expect(res.status).toBe(204);
};

describe('posting and polling comments', () => {
  it('posts a comment and shows it on the next poll, with mine for its author only', async () => {
    const postId = await publishedPost();
    const posted = await commentAs(url(), channelId, postId, 'Nice one, thanks!', 'ann');
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({
      postId,
      author: { userId: 'ann', isModerator: false },
      text: 'Nice one, thanks!',
      status: 'visible',
      mine: true,
    });
    const first = await poll(postId, 'bob');
    expectPollInterval(first.res.headers.get('x-poll-interval'), 5000);
    expect(first.page?.items).toEqual([expect.objectContaining({ id: posted.id, mine: false })]);
    const etag = first.res.headers.get('etag') ?? '';
    expect((await poll(postId, 'bob', '', etag)).res.status).toBe(304);
    // Ann's view of the same page differs (mine), so her tag does too.
    const ann = await poll(postId, 'ann');
    expect(ann.page?.items[0]?.mine).toBe(true);
    const annTag = ann.res.headers.get('etag') ?? '';
    expect(annTag).not.toBe(etag);
    expect((await poll(postId, 'ann', '', annTag)).res.status).toBe(304);
    expect((await poll(postId, 'ann', '', etag)).res.status).toBe(200);
    // The feed counts it.
    const feed = await fetch(`${url()}/api/channel/${channelId}/posts/${postId}`, {
      headers: userHeaders('bob'),
    });
    expect(((await feed.json()) as { commentCount: number }).commentCount).toBe(1);
  });

  it('takes an Idempotency-Key: a retry answers the first comment and posts nothing new', async () => {
    const postId = await publishedPost();
    const send = () =>
      fetch(commentsUrl(postId), {
        method: 'POST',
        headers: { ...userHeaders('retry'), 'content-type': 'application/json', 'idempotency-key': 'k-1' },
        body: JSON.stringify({ text: 'once only' }),
      });
    const first = (await (await send()).json()) as Comment;
    const again = await send();
    expect(again.status).toBe(201);
    expect(((await again.json()) as Comment).id).toBe(first.id);
    expect((await poll(postId, 'bob')).page?.items.map((c) => c.id)).toEqual([first.id]);
  });

  it('refuses empty and too long texts (400), and comments on posts clients cannot see (404)', async () => {
    const postId = await publishedPost();
    expect((await commentAs(url(), channelId, postId, '   ')).status).toBe(400);
    expect((await commentAs(url(), channelId, postId, 'x'.repeat(2001))).status).toBe(400);
    const draft = await publishedPost([]);
    expect((await commentAs(url(), channelId, draft)).status).toBe(404);
    expect((await poll(draft, 'bob')).res.status).toBe(404);
  });

  it('answers 403 comments_closed when the post or the channel takes no comments', async () => {
    const closed = await publishedPost(['publish'], { text: 'No comments', commentsEnabled: false });
    const refused = await commentAs(url(), channelId, closed);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'comments_closed' });
  });

  it('holds each user to the slow mode: a burst of 3, then 429 with Retry-After', async () => {
    const postId = await publishedPost();
    for (let i = 0; i < 3; i++)
      expect((await commentAs(url(), channelId, postId, `n${i}`, 'fast')).status).toBe(201);
    const res = await fetch(commentsUrl(postId), {
      method: 'POST',
      headers: { ...userHeaders('fast'), 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'one more' }),
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another user is not held back.
    expect((await commentAs(url(), channelId, postId, 'me too', 'slow')).status).toBe(201);
  });

  it('takes an image with the text (multipart), and serves it; anything but an image is 415', async () => {
    const postId = await publishedPost();
    const png = readFileSync(new URL('../fixtures/files/python.png', import.meta.url));
    const form = new FormData();
    form.append('text', 'Look at this');
    form.append('image', new Blob([png], { type: 'image/png' }), 'shot.png');
    const res = await fetch(commentsUrl(postId), { method: 'POST', headers: userHeaders('pic'), body: form });
    expect(res.status).toBe(201);
    const comment = (await res.json()) as Comment;
    expect(comment.image).toMatchObject({
      url: expect.stringMatching(
        new RegExp(`^/files/comments/${comment.id}\\?t=\\d+\\.[\\w-]{43}$`),
      ) as string,
      width: expect.any(Number) as number,
    });
    // The signed link needs no session, as an <img src> has none.
    const image = await fetch(`${url()}${comment.image?.url ?? ''}`);
    expect(image.status).toBe(200);
    expect(Buffer.from(await image.arrayBuffer()).equals(png)).toBe(true);
    // The route with a session stays.
    const own = await fetch(`${commentsUrl(postId)}/${comment.id}/image`, { headers: userHeaders('bob') });
    expect(own.status).toBe(200);
    expect(Buffer.from(await own.arrayBuffer()).equals(png)).toBe(true);

    const text = new FormData();
    text.append('text', 'A document');
    text.append('image', new Blob(['%PDF-1.4 not an image'], { type: 'application/pdf' }), 'doc.pdf');
    const refused = await fetch(commentsUrl(postId), {
      method: 'POST',
      headers: userHeaders('pdf'),
      body: text,
    });
    expect(refused.status).toBe(415);
    const imageFirst = new FormData();
    imageFirst.append('image', new Blob([png], { type: 'image/png' }), 'shot.png');
    imageFirst.append('text', 'late');
    expect(
      (await fetch(commentsUrl(postId), { method: 'POST', headers: userHeaders('order'), body: imageFirst }))
        .status,
    ).toBe(400);
  });
});

describe('content safety', () => {
  const secrets = {
    link: 'see example[.]com for more',
    card: '4111 1111 1111 1111',
    seed: 'abandon ability able about above absent absorb abstract absurd abuse access accident',
    apiKey: 'AKIAIOSFODNN7EXAMPLE',
    privateKey: '5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ',
    password: 'password: Hunter2-secret',
  };

  it('refuses links and secrets with 422, storing nothing but a redacted moderation event', async () => {
    const postId = await publishedPost();
    const link = await commentAs(url(), channelId, postId, `Check ${secrets.link}`, 'leaky');
    expect(link.status).toBe(422);
    expect(link.body).toMatchObject({ code: 'comment_contains_link' });
    for (const secret of [secrets.card, secrets.seed, secrets.apiKey, secrets.privateKey, secrets.password]) {
      const refused = await commentAs(url(), channelId, postId, `my ${secret} ok`);
      expect(refused.status, secret).toBe(422);
      expect(refused.body).toMatchObject({ code: 'comment_dlp_blocked' });
      expect(JSON.stringify(refused.body)).not.toContain(secret);
    }
    expect((await poll(postId, 'bob')).page?.items).toEqual([]);
    const history = await adminCall(
      url(),
      admin,
      'GET',
      `/admin/moderation/events?channelId=${channelId}&userId=leaky`,
    );
    expect((history.body as { items: unknown[] }).items).toEqual([
      expect.objectContaining({
        action: 'comment_rejected',
        detail: expect.objectContaining({
          kind: 'link',
          hash: expect.stringMatching(/^[0-9a-f]{64}$/) as string,
        }) as unknown,
      }),
    ]);
  });

  it('leaves no trace of a refused secret in any table, event or log line', async () => {
    const postId = await publishedPost();
    for (const secret of Object.values(secrets)) await commentAs(url(), channelId, postId, `x ${secret} y`);
    const stored = await databaseText(used.db.pool);
    const logged = used.running.logs.lines.join('\n');
    for (const secret of Object.values(secrets)) {
      expect(stored).not.toContain(secret);
      expect(logged).not.toContain(secret);
    }
    expect(stored).toContain('comment_rejected');
  });
});

describe('moderation from the client and bans', () => {
  it('lets channel moderators hide and unhide; others get 403; polls see tombstones', async () => {
    const postId = await publishedPost();
    const comment = await commentAs(url(), channelId, postId, 'Borderline', 'cat');
    const bobFirst = await poll(postId, 'bob');
    const cursor = bobFirst.page?.nextCursor ?? '';
    const act = (userId: string, what: 'hide' | 'unhide') =>
      fetch(`${commentsUrl(postId)}/${comment.id}/${what}`, {
        method: 'POST',
        headers: { ...userHeaders(userId), 'content-type': 'application/json' },
        body: JSON.stringify(what === 'hide' ? { reason: 'off topic' } : {}),
      });
    expect((await act('bob', 'hide')).status).toBe(403);
    await assignModerator('mia');
    const badge = await commentAs(url(), channelId, await publishedPost(), 'Please stay on topic', 'mia');
    expect(badge.body).toMatchObject({ author: { userId: 'mia', isModerator: true } });
    expect((await act('mia', 'hide')).status).toBe(204);

    const bobAfter = await poll(postId, 'bob', `?since=${cursor}`);
    expect(bobAfter.page?.items).toEqual([{ id: comment.id, status: 'hidden' }]);
    const miaView = await poll(postId, 'mia', `?since=${cursor}`);
    expect(miaView.page?.items).toEqual([
      expect.objectContaining({ id: comment.id, status: 'hidden', text: 'Borderline' }),
    ]);
    expect((await poll(postId, 'bob')).page?.items).toEqual([]);

    expect((await act('mia', 'unhide')).status).toBe(204);
    const back = await poll(postId, 'bob', `?since=${bobAfter.page?.nextCursor ?? ''}`);
    expect(back.page?.items).toEqual([
      expect.objectContaining({ id: comment.id, status: 'visible', text: 'Borderline' }),
    ]);

    // The author deletes it: a tombstone, and only the author may.
    const del = (userId: string) =>
      fetch(`${commentsUrl(postId)}/${comment.id}`, { method: 'DELETE', headers: userHeaders(userId) });
    expect((await del('bob')).status).toBe(403);
    expect((await del('cat')).status).toBe(204);
    expect((await del('cat')).status).toBe(204);
    const gone = await poll(postId, 'bob', `?since=${back.page?.nextCursor ?? ''}`);
    expect(gone.page?.items).toEqual([{ id: comment.id, status: 'deleted' }]);
  });

  it('refuses a banned user with 403 user_banned and until; a timed ban ends by itself; a lift ends it early', async () => {
    const postId = await publishedPost();
    const until = new Date(Date.now() + 1500).toISOString();
    const ban = await adminCall(url(), admin, 'POST', `/admin/channels/${channelId}/bans`, {
      userId: 'dan',
      until,
      reason: 'spam',
    });
    expect(ban.status).toBe(201);
    const refused = await commentAs(url(), channelId, postId, 'let me in', 'dan');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'user_banned', until });
    await new Promise((r) => setTimeout(r, Date.parse(until) - Date.now() + 100));
    expect((await commentAs(url(), channelId, postId, 'back again', 'dan')).status).toBe(201);

    await adminCall(url(), admin, 'POST', `/admin/channels/${channelId}/bans`, {
      userId: 'eve',
      reason: 'abuse',
    });
    const forever = await commentAs(url(), channelId, postId, 'hi', 'eve');
    expect(forever.body).toMatchObject({ code: 'user_banned', until: null });
    const bans = await adminCall(url(), admin, 'GET', `/admin/channels/${channelId}/bans`);
    expect((bans.body as { items: { userId: string }[] }).items.map((b) => b.userId)).toContain('eve');
    expect((await adminCall(url(), admin, 'DELETE', `/admin/channels/${channelId}/bans/eve`)).status).toBe(
      204,
    );
    expect((await commentAs(url(), channelId, postId, 'hi again', 'eve')).status).toBe(201);
  });

  it("stores a refused comment's picture nowhere: the decision comes before the bytes", async () => {
    const open = await publishedPost();
    const closed = await publishedPost(['publish'], { text: 'No comments', commentsEnabled: false });
    const ban = { userId: 'banned-with-picture', reason: 'spam' };
    expect((await adminCall(url(), admin, 'POST', `/admin/channels/${channelId}/bans`, ban)).status).toBe(
      201,
    );
    const png = readFileSync(new URL('../fixtures/files/python.png', import.meta.url));
    const withPicture = (postId: string, userId: string) => {
      const form = new FormData();
      form.append('text', 'Look at this');
      form.append('image', new Blob([png], { type: 'image/png' }), 'shot.png');
      return fetch(commentsUrl(postId), { method: 'POST', headers: userHeaders(userId), body: form });
    };
    const pictures = async () =>
      (await recorded.keys()).filter((key) => key.startsWith(`comments/${channelId}/`));
    const before = await pictures();
    const written = recorded.writes.length;

    const banned = await withPicture(open, 'banned-with-picture');
    expect(banned.status).toBe(403);
    expect(await banned.json()).toMatchObject({ code: 'user_banned' });
    const refused = await withPicture(closed, 'picture-on-closed');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'comments_closed' });
    // Not written and then removed: never written at all.
    expect(recorded.writes.slice(written)).toEqual([]);
    expect(await pictures()).toEqual(before);

    expect((await withPicture(open, 'picture-on-open')).status).toBe(201);
    expect(recorded.writes.slice(written)).toEqual([expect.stringMatching(`^comments/${channelId}/`)]);
    expect((await pictures()).length).toBe(before.length + 1);
  });
});

describe('posting contexts looked up together', () => {
  it('answers each comment of one shared query with its own post, ban and badge', async () => {
    const open = await publishedPost();
    const closed = await publishedPost(['publish'], { text: 'No comments', commentsEnabled: false });
    const draft = await publishedPost([]);
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const ban = { userId: 'gil', until, reason: 'spam' };
    expect((await adminCall(url(), admin, 'POST', `/admin/channels/${channelId}/bans`, ban)).status).toBe(
      201,
    );
    await assignModerator('hal');

    let queries = 0;
    const pool = used.db.pool;
    const counted = new Proxy(pool, {
      get: (target, key) =>
        key === 'any'
          ? (...args: Parameters<typeof pool.any>) => {
              queries += 1;
              return target.any(...args);
            }
          : (Reflect.get(target, key, target) as unknown),
    });
    const lookup = createPostingContextLookup(counted);
    const found = await Promise.all([
      lookup(channelId, open, 'ivy'),
      lookup(channelId, open, 'gil'),
      lookup(channelId, closed, 'hal'),
      lookup(channelId, draft, 'ivy'),
      lookup(channelId, open, 'hal'),
      lookup(channelId, open, 'ivy'),
    ]);

    expect(queries).toBe(1);
    const openPost = { commentsEnabled: true, autoHideReports: 3 };
    expect(found).toEqual([
      expect.objectContaining({ ...openPost, ban: null, posterIsModerator: false }),
      expect.objectContaining({ ...openPost, ban: { until }, posterIsModerator: false }),
      expect.objectContaining({ commentsEnabled: false, ban: null, posterIsModerator: true }),
      null,
      expect.objectContaining({ ...openPost, ban: null, posterIsModerator: true }),
      expect.objectContaining({ ...openPost, ban: null, posterIsModerator: false }),
    ]);
  });
});

describe('reports', () => {
  it('hides a comment at the threshold of distinct reporters and records the rule; the queue resolves', async () => {
    const postId = await publishedPost();
    const comment = await commentAs(url(), channelId, postId, 'Buy my stuff', 'spammer');
    expect(await reportComment(url(), channelId, postId, comment.id, 'r1')).toBe(202);
    expect(await reportComment(url(), channelId, postId, comment.id, 'r1')).toBe(202);
    expect(await reportComment(url(), channelId, postId, comment.id, 'r2')).toBe(202);
    expect((await poll(postId, 'bob')).page?.items.map((c) => c.id)).toContain(comment.id);
    expect(await reportComment(url(), channelId, postId, comment.id, 'r3')).toBe(202);
    expect((await poll(postId, 'bob')).page?.items.map((c) => c.id)).not.toContain(comment.id);

    // Another actor's reports reach the moderators' history a moment later (its projection gathers).
    const history = await eventually(
      () => adminCall(url(), admin, 'GET', `/admin/moderation/events?commentId=${comment.id}`),
      (res) => (res.body as { items: unknown[] }).items.length === 4,
    );
    const actions = (history.body as { items: { action: string; detail: Record<string, unknown> }[] }).items;
    expect(actions.map((a) => a.action)).toEqual([
      'comment_auto_hidden',
      'comment_reported',
      'comment_reported',
      'comment_reported',
    ]);
    expect(actions[0]?.detail).toEqual({ rule: 'distinct_reports', threshold: 3, reports: 3 });
    const later = new Date(Date.now() + 60_000).toISOString();
    const none = await adminCall(
      url(),
      admin,
      'GET',
      `/admin/moderation/events?commentId=${comment.id}&from=${later}`,
    );
    expect((none.body as { items: unknown[] }).items).toEqual([]);
    const upTo = await adminCall(
      url(),
      admin,
      'GET',
      `/admin/moderation/events?commentId=${comment.id}&to=${later}&limit=2`,
    );
    const paged = upTo.body as { items: unknown[]; nextCursor: string | null };
    expect(paged.items).toHaveLength(2);
    const rest = await adminCall(
      url(),
      admin,
      'GET',
      `/admin/moderation/events?commentId=${comment.id}&cursor=${paged.nextCursor ?? ''}`,
    );
    expect((rest.body as { items: unknown[] }).items).toHaveLength(2);

    const reportId = await openReportOf(url(), admin, comment.id);
    const resolved = await adminCall(url(), admin, 'POST', `/admin/reports/${reportId}/resolve`, {
      action: 'delete',
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ status: 'resolved', action: 'delete', commentStatus: 'deleted' });
    const again = await adminCall(url(), admin, 'POST', `/admin/reports/${reportId}/resolve`, {
      action: 'dismiss',
    });
    expect(again.status).toBe(409);
  });
});

describe('refusals of bad input', () => {
  it('answers 400 validation_failed and changes nothing', async () => {
    const postId = await publishedPost();
    const comment = await commentAs(url(), channelId, postId, 'keep me', 'kept');
    const bad: [string, string, unknown][] = [
      [
        'POST',
        `/admin/channels/${channelId}/bans`,
        { userId: 'x', reason: 'r', until: '2001-01-01T00:00:00Z' },
      ],
      ['POST', `/admin/channels/${channelId}/bans`, { userId: 'x' }],
      ['POST', `/admin/comments/${comment.id}/hide`, {}],
      ['DELETE', `/admin/comments/${comment.id}`, { reason: '' }],
      ['POST', `/admin/reports/${comment.id}/resolve`, { action: 'nuke' }],
      ['GET', '/admin/moderation/events?cursor=not*a*cursor', undefined],
      ['GET', '/admin/moderation/replay', undefined],
      ['GET', `/admin/channels/${channelId}/comments?status=gone`, undefined],
    ];
    for (const [method, path, body] of bad) {
      const res = await adminCall(url(), admin, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
    }
    const report = await fetch(`${commentsUrl(postId)}/${comment.id}/report`, {
      method: 'POST',
      headers: { ...userHeaders('r'), 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'because' }),
    });
    expect(report.status).toBe(400);
    expect((await poll(postId, 'bob', '?since=%%%')).res.status).toBe(400);
    const bans = await adminCall(url(), admin, 'GET', `/admin/channels/${channelId}/bans`);
    expect((bans.body as { items: { userId: string }[] }).items.map((b) => b.userId)).not.toContain('x');
    expect((await poll(postId, 'bob')).page?.items.map((c) => c.id)).toContain(comment.id);
  });

  it('answers 404 for comments and reports that do not exist', async () => {
    const missing = '0195e7a4-0000-7000-8000-00000000dead';
    expect(
      (await adminCall(url(), admin, 'POST', `/admin/comments/${missing}/hide`, { reason: 'r' })).status,
    ).toBe(404);
    expect(
      (await adminCall(url(), admin, 'POST', `/admin/reports/${missing}/resolve`, { action: 'dismiss' }))
        .status,
    ).toBe(404);
    expect((await adminCall(url(), admin, 'PUT', `/admin/channels/${missing}/moderators/u`)).status).toBe(
      404,
    );
  });
});

describe('moderation replay', () => {
  it('rebuilds from the event store: now equals the read tables, an earlier instant shows the earlier state', async () => {
    const made = await adminCall(url(), admin, 'POST', '/admin/channels', {
      title: 'Replayed',
      autoHideReports: 2,
    });
    const replayChannel = (made.body as { id: string }).id;
    const postId = await postThrough(url(), admin, replayChannel, ['publish']);
    const first = await commentAs(url(), replayChannel, postId, 'first', 'u1');
    const second = await commentAs(url(), replayChannel, postId, 'second', 'u2');
    await adminCall(url(), admin, 'PUT', `/admin/channels/${replayChannel}/moderators/mod1`);
    await new Promise((r) => setTimeout(r, 20));
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await reportComment(url(), replayChannel, postId, first.id, 'x1');
    await reportComment(url(), replayChannel, postId, first.id, 'x2');
    await adminCall(url(), admin, 'DELETE', `/admin/comments/${second.id}`, { reason: 'rude' });
    await adminCall(url(), admin, 'POST', `/admin/channels/${replayChannel}/bans`, {
      userId: 'u2',
      reason: 'rude',
    });
    await adminCall(url(), admin, 'DELETE', `/admin/channels/${replayChannel}/moderators/mod1`);
    // The threshold changes afterwards: the replay still reaches the decision made under the old one.
    await adminCall(url(), admin, 'PATCH', `/admin/channels/${replayChannel}`, { autoHideReports: 10 });

    const replay = async (asOf?: string) =>
      (
        await adminCall(
          url(),
          admin,
          'GET',
          `/admin/moderation/replay?channelId=${replayChannel}${asOf ? `&asOf=${asOf}` : ''}`,
        )
      ).body as {
        comments: { id: string; status: string }[];
        bans: { userId: string }[];
        moderators: string[];
      };
    const now = await replay();
    const statuses = Object.fromEntries(now.comments.map((c) => [c.id, c.status]));
    expect(statuses).toEqual({ [first.id]: 'hidden', [second.id]: 'deleted' });
    expect(now.bans.map((b) => b.userId)).toEqual(['u2']);
    expect(now.moderators).toEqual([]);

    const listed = await adminCall(url(), admin, 'GET', `/admin/channels/${replayChannel}/comments`);
    const table = Object.fromEntries(
      (listed.body as { items: { id: string; status: string }[] }).items.map((c) => [c.id, c.status]),
    );
    expect(statuses).toEqual(table);
    const bans = await adminCall(url(), admin, 'GET', `/admin/channels/${replayChannel}/bans`);
    expect((bans.body as { items: { userId: string }[] }).items.map((b) => b.userId)).toEqual(
      now.bans.map((b) => b.userId),
    );
    const mods = await adminCall(url(), admin, 'GET', `/admin/channels/${replayChannel}/moderators`);
    expect((mods.body as { items: string[] }).items).toEqual(now.moderators);

    const earlier = await replay(before);
    expect(Object.fromEntries(earlier.comments.map((c) => [c.id, c.status]))).toEqual({
      [first.id]: 'visible',
      [second.id]: 'visible',
    });
    expect(earlier.bans).toEqual([]);
    expect(earlier.moderators).toEqual(['mod1']);
  });

  it('every comment and moderation read table rebuilds from the events alone, equal to the live ones', async () => {
    const [comments] = await expectRebuildEqualsLive(used, commentsProjection);
    expect(comments?.length).toBeGreaterThan(3);
    const [bans] = await expectRebuildEqualsLive(used, moderationProjection);
    expect(bans?.length).toBeGreaterThan(0);

    // Posting reads bans through a statement prepared before the rebuild replaced the views.
    const postId = await publishedPost();
    const posted = await Promise.all(
      ['after-1', 'after-2', 'after-3'].map((user) =>
        commentAs(url(), channelId, postId, 'still here', user),
      ),
    );
    expect(posted.map((p) => p.status)).toEqual([201, 201, 201]);
    const ban = await adminCall(url(), admin, 'POST', `/admin/channels/${channelId}/bans`, {
      userId: 'after-1',
      reason: 'spam',
    });
    expect(ban.status, JSON.stringify(ban.body)).toBe(201);
    const refused = await commentAs(url(), channelId, postId, 'again', 'after-1');
    expect(refused).toMatchObject({ status: 403, body: { code: 'user_banned' } });
  });
});
