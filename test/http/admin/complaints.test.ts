import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { complaintsProjection } from '../../../src/projections/complaints.ts';
import { adminCall, createTestAdmin, loginToken, type TestAdmin } from '../../support/admin.ts';
import { bearer, TEST_SECRETS, useRunningApp } from '../../support/app.ts';
import { clientApi } from '../../support/chat.ts';
import { eraseUser } from '../../support/erase-user.ts';
import { sessionToken } from '../../support/jwt.ts';
import { expectRebuildEqualsLive } from '../../support/rebuild.ts';

const used = useRunningApp();
const url = () => used.running.url;
const api = clientApi(url);

const summary = z.strictObject({
  id: z.uuid(),
  userId: z.string().nullable(),
  reason: z.strictObject({ id: z.uuid(), title: z.string() }),
  status: z.enum(['open', 'resolved']),
  conversationId: z.string().optional(),
  ticketId: z.string().optional(),
  createdAt: z.iso.datetime(),
  resolvedAt: z.iso.datetime().optional(),
});
const page = z.object({ items: z.array(summary), nextCursor: z.string().nullable() });
const detail = summary.extend({
  text: z.string().nullable(),
  attachments: z.array(
    z.strictObject({
      id: z.uuid(),
      name: z.string().nullable(),
      contentType: z.string(),
      size: z.number(),
      url: z.string(),
    }),
  ),
  resolvedBy: z.string().optional(),
  note: z.string().optional(),
});

const tokens: Record<'owner' | 'support' | 'author' | 'auditor', string> = {
  owner: '',
  support: '',
  author: '',
  auditor: '',
};
let support: TestAdmin;
let reasonId = '';

const as = (role: keyof typeof tokens, method: string, path: string, body?: unknown) =>
  adminCall(url(), tokens[role], method, path, body);

const upload = async (user: string, text: string) => {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/plain' }), 'receipt.txt');
  const res = await fetch(`${url()}/api/files/upload`, {
    method: 'POST',
    headers: bearer(sessionToken(TEST_SECRETS.JWT_SECRET, user)),
    body: form,
  });
  expect(res.status).toBe(201);
  return z.object({ id: z.string() }).parse(await res.json()).id;
};

/** A complaint filed by `user` through the client API; answers its id. */
const fileComplaint = async (user: string, body: Record<string, unknown> = {}) => {
  const answer = await api.post(user, '/complaints', { reasonId, text: `Complaint by ${user}`, ...body });
  expect(answer.status, JSON.stringify(answer.json)).toBe(201);
  return z.object({ id: z.uuid() }).parse(answer.json).id;
};

beforeAll(async () => {
  support = await createTestAdmin(used.db.pool, 'support');
  tokens.owner = await loginToken(url(), await createTestAdmin(used.db.pool, 'owner'));
  tokens.support = await loginToken(url(), support);
  tokens.author = await loginToken(url(), await createTestAdmin(used.db.pool, 'author'));
  tokens.auditor = await loginToken(url(), await createTestAdmin(used.db.pool, 'auditor'));
  const reason = await as('owner', 'POST', '/admin/reasons', { kind: 'complaint', title: 'Slow answers' });
  reasonId = (reason.body as { id: string }).id;
});

describe('GET /admin/complaints/:id', () => {
  it('shows the text, the reason as filed, the targets and signed links to the attachments', async () => {
    const sent = await api.post('mia', '/conversations', { text: 'Hello' });
    const { conversationId } = sent.json as { conversationId: string };
    const fileId = await upload('mia', 'the receipt bytes');
    const id = await fileComplaint('mia', { conversationId, attachmentIds: [fileId] });
    // Renamed afterwards: the complaint keeps the title it was filed under.
    await as('owner', 'PATCH', `/admin/reasons/${reasonId}`, { title: 'Slow answers (renamed)' });

    const answer = await as('support', 'GET', `/admin/complaints/${id}`);
    expect(answer.status).toBe(200);
    const shown = detail.parse(answer.body);
    expect(shown).toMatchObject({
      id,
      userId: 'mia',
      reason: { id: reasonId, title: 'Slow answers' },
      status: 'open',
      conversationId,
      text: 'Complaint by mia',
    });
    expect(shown.attachments).toEqual([
      {
        id: fileId,
        name: 'receipt.txt',
        contentType: expect.stringMatching(/^text\/plain/) as string,
        size: 17,
        url: expect.stringMatching(new RegExp(`^${url()}/files/${fileId}\\?t=`)) as string,
      },
    ]);
    const download = await fetch(shown.attachments[0]?.url ?? '');
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('the receipt bytes');
  });

  it("shows an erased user's complaint without its user, text or attachments, its reason and resolution kept", async () => {
    const fileId = await upload('pia', 'erased receipt');
    const id = await fileComplaint('pia', { attachmentIds: [fileId] });
    expect((await as('support', 'POST', `/admin/complaints/${id}/resolve`, { note: 'done' })).status).toBe(
      200,
    );
    await eraseUser(used, 'pia', ['complaints']);

    const answer = await as('support', 'GET', `/admin/complaints/${id}`);
    expect(answer.status).toBe(200);
    expect(detail.parse(answer.body)).toMatchObject({
      id,
      userId: null,
      text: null,
      attachments: [],
      reason: { id: reasonId },
      status: 'resolved',
      note: 'done',
    });
    const listed = page.parse((await as('support', 'GET', '/admin/complaints?limit=100')).body);
    expect(listed.items.find((c) => c.id === id)).toMatchObject({ userId: null, status: 'resolved' });
    // The user's own list no longer holds it: it is no one's now.
    const own = await api.get('pia', '/complaints');
    expect(own.json).toMatchObject({ items: [] });
  });

  it('answers 404 for an unknown complaint and 400 for an id that is not one', async () => {
    expect((await as('support', 'GET', `/admin/complaints/${randomUUID()}`)).status).toBe(404);
    expect((await as('support', 'GET', '/admin/complaints/nope')).status).toBe(400);
  });
});

describe('GET /admin/complaints', () => {
  it('lists newest first without the text, filters by status and pages by cursor', async () => {
    const ids = [await fileComplaint('nia'), await fileComplaint('nia'), await fileComplaint('ola')];
    const resolved = ids[1] ?? '';
    expect((await as('support', 'POST', `/admin/complaints/${resolved}/resolve`, {})).status).toBe(200);

    const first = page.parse((await as('support', 'GET', '/admin/complaints?limit=2')).body);
    expect(first.items.map((c) => c.id)).toEqual([ids[2], ids[1]]);
    expect(first.nextCursor).not.toBeNull();
    const second = page.parse(
      (await as('support', 'GET', `/admin/complaints?limit=2&cursor=${first.nextCursor ?? ''}`)).body,
    );
    expect(second.items[0]?.id).toBe(ids[0]);

    const open = page.parse((await as('support', 'GET', '/admin/complaints?status=open&limit=100')).body);
    expect(open.items.every((c) => c.status === 'open')).toBe(true);
    expect(open.items.map((c) => c.id)).not.toContain(resolved);
    const done = page.parse((await as('support', 'GET', '/admin/complaints?status=resolved&limit=100')).body);
    expect(done.items.map((c) => c.id)).toContain(resolved);
    expect(done.items.find((c) => c.id === resolved)?.resolvedAt).toEqual(expect.any(String));
  });

  it.each([['status=closed'], ['cursor=not-a-cursor!'], ['cursor=YWJj'], ['limit=0'], ['limit=101']])(
    'refuses %s with 400',
    async (query) => {
      const answer = await as('support', 'GET', `/admin/complaints?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'validation_failed' });
    },
  );
});

describe('POST /admin/complaints/:id/resolve', () => {
  const audited = async (id: string) => {
    const log = await as('owner', 'GET', '/admin/audit-log?action=complaints.resolve&limit=100');
    const items = (log.body as { items: Record<string, unknown>[] }).items;
    return items.filter((e) => (e.target as { id?: string } | null)?.id === id);
  };

  it('resolves with a note, audited; the user sees it resolved, never the note', async () => {
    const id = await fileComplaint('pam');
    const answer = await as('support', 'POST', `/admin/complaints/${id}/resolve`, {
      note: 'Talked to the operator.',
    });
    expect(answer.status).toBe(200);
    expect(detail.parse(answer.body)).toMatchObject({
      id,
      status: 'resolved',
      resolvedBy: support.id,
      note: 'Talked to the operator.',
      resolvedAt: expect.any(String) as string,
    });
    const mine = (await api.get('pam', '/complaints')).json as { items: Record<string, unknown>[] };
    expect(mine.items).toEqual([
      {
        id,
        reasonId,
        status: 'resolved',
        createdAt: expect.any(String) as string,
        resolvedAt: expect.any(String) as string,
      },
    ]);
    expect(await audited(id)).toEqual([
      expect.objectContaining({
        adminId: support.id,
        target: { type: 'complaint', id },
        outcome: 'success',
        statusCode: 200,
        detail: { withNote: true },
      }),
    ]);
  });

  it('resolves without a note; resolving again is 409, audited as failed, and keeps the first resolution', async () => {
    const id = await fileComplaint('quin');
    // No body at all, as a panel's button may send it (an empty JSON body is taken the same way).
    expect((await as('owner', 'POST', `/admin/complaints/${id}/resolve`)).status).toBe(200);
    const again = await as('support', 'POST', `/admin/complaints/${id}/resolve`, { note: 'Me too' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'conflict' });
    const kept = detail.parse((await as('support', 'GET', `/admin/complaints/${id}`)).body);
    expect(kept.note).toBeUndefined();
    expect(kept.resolvedBy).not.toBe(support.id);
    expect((await audited(id)).map((e) => e.outcome).sort()).toEqual(['failed', 'success']);
  });

  it('replays the first answer for a retried Idempotency-Key instead of refusing it', async () => {
    const id = await fileComplaint('rex');
    const key = `resolve-${randomUUID()}`;
    const send = () =>
      fetch(`${url()}/admin/complaints/${id}/resolve`, {
        method: 'POST',
        headers: { ...bearer(tokens.support), 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ note: 'Once' }),
      });
    const first = await send();
    const retry = await send();
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it.each([
    ['a note over 2000 characters', { note: 'x'.repeat(2001) }, 400],
    ['a NUL in the note', { note: 'a\u0000b' }, 400],
    ['an unknown field', { action: 'dismiss' }, 400],
  ])('refuses %s', async (_label, body, status) => {
    const id = await fileComplaint('sal');
    const answer = await as('support', 'POST', `/admin/complaints/${id}/resolve`, body);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ code: 'validation_failed' });
  });

  it('answers 404 for an unknown complaint', async () => {
    const answer = await as('support', 'POST', `/admin/complaints/${randomUUID()}/resolve`, {});
    expect(answer.status).toBe(404);
  });
});

describe('who may', () => {
  it('read: owner, support and auditor; resolve: owner and support; an author neither', async () => {
    const id = await fileComplaint('tia');
    for (const role of ['owner', 'support', 'auditor'] as const) {
      expect((await as(role, 'GET', '/admin/complaints')).status).toBe(200);
      expect((await as(role, 'GET', `/admin/complaints/${id}`)).status).toBe(200);
    }
    for (const path of ['/admin/complaints', `/admin/complaints/${id}`]) {
      const refused = await as('author', 'GET', path);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'forbidden' });
    }
    for (const role of ['author', 'auditor'] as const) {
      expect((await as(role, 'POST', `/admin/complaints/${id}/resolve`, {})).status).toBe(403);
    }
    expect((await as('support', 'POST', `/admin/complaints/${id}/resolve`, {})).status).toBe(200);
  });
});

describe('the complaints projection', () => {
  it('rebuilds from the event store to the same tables', async () => {
    const [complaints, attachments] = await expectRebuildEqualsLive(used, complaintsProjection);
    expect(complaints?.length).toBeGreaterThan(0);
    expect(attachments?.length).toBeGreaterThan(0);
  });
});
