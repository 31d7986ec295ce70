import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { bearer, TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { clientApi, requireSandbox } from '../support/chat.ts';
import { eventually } from '../support/eventually.ts';
import { sessionToken } from '../support/jwt.ts';

const used = useRunningApp();
const url = () => used.running.url;
const api = clientApi(url);
const sandbox = () => requireSandbox(used.running.support.sandbox);

const TEXT = 'complaint-text-7d1e: the operator laughed at my refund request';
const filed = z.object({ id: z.uuid(), createdAt: z.iso.datetime() });
const listed = z.object({
  items: z.array(
    z.strictObject({
      id: z.string(),
      reasonId: z.string(),
      status: z.enum(['open', 'resolved']),
      createdAt: z.string(),
      resolvedAt: z.string().optional(),
    }),
  ),
});

let owner = '';
const reasons = { complaint: '', inactive: '', support: '', deleted: '' };

const makeReason = async (body: Record<string, unknown>) => {
  const made = await adminCall(url(), owner, 'POST', '/admin/reasons', body);
  expect(made.status).toBe(201);
  return (made.body as { id: string }).id;
};

/** Opens a support request as `user`, which gives them a contact and a conversation. */
const conversationOf = async (user: string) => {
  const sent = await api.post(user, '/conversations', { text: 'Hello support' });
  expect(sent.status).toBe(201);
  return (sent.json as { conversationId: string }).conversationId;
};
const contactOf = (user: string) =>
  [...sandbox().state.contacts.values()].find((c) => c.externalId === user)?.id ?? '';
const ticketOf = async (user: string) =>
  (await sandbox().operator.createTicket({ contactId: contactOf(user), title: 'Refund' })).id;

const upload = async (user: string, text = 'receipt') => {
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

const file = (user: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  api.post(user, '/complaints', { reasonId: reasons.complaint, text: TEXT, ...body }, headers);
const listOf = async (user: string) => listed.parse((await api.get(user, '/complaints')).json).items;
const complaintEvents = () =>
  used.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM events WHERE stream_category = 'complaint'`);

beforeAll(async () => {
  owner = await loginToken(url(), await createTestAdmin(used.db.pool, 'owner'));
  reasons.complaint = await makeReason({ kind: 'complaint', title: 'Rude operator' });
  reasons.inactive = await makeReason({ kind: 'complaint', title: 'Old topic', active: false });
  reasons.support = await makeReason({ kind: 'support', title: 'Billing' });
  reasons.deleted = await makeReason({ kind: 'complaint', title: 'Gone' });
  expect((await adminCall(url(), owner, 'DELETE', `/admin/reasons/${reasons.deleted}`)).status).toBe(204);
});

describe('POST /api/complaints', () => {
  it('files a complaint about the caller’s own conversation and ticket, with their own files', async () => {
    const conversationId = await conversationOf('cara');
    const ticketId = await ticketOf('cara');
    const attachmentIds = [await upload('cara'), await upload('cara', 'second')];
    const answer = await file('cara', { conversationId, ticketId, attachmentIds });
    expect(answer.status, JSON.stringify(answer.json)).toBe(201);
    const { id, createdAt } = filed.parse(answer.json);
    expect(Object.keys(answer.json as object).sort()).toEqual(['createdAt', 'id']);

    // Read your writes: the list has it at once.
    expect(await listOf('cara')).toEqual([{ id, reasonId: reasons.complaint, status: 'open', createdAt }]);
  });

  it('files a complaint with no target and no file, from a user who never wrote to support', async () => {
    const answer = await file('newcomer', {});
    expect(answer.status).toBe(201);
    expect((await listOf('newcomer')).map((c) => c.id)).toEqual([filed.parse(answer.json).id]);
  });

  it.each([
    ['a support reason', () => reasons.support],
    ['an inactive complaint reason', () => reasons.inactive],
    ['a deleted complaint reason', () => reasons.deleted],
    ['an unknown reason', () => randomUUID()],
  ])(
    'refuses %s with 400 validation_failed naming reasonId, and stores nothing',
    async (_label, reasonId) => {
      const before = await complaintEvents();
      const answer = await file('dora', { reasonId: reasonId() });
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.json).toMatchObject({ code: 'validation_failed', errors: [{ path: 'body.reasonId' }] });
      expect(await complaintEvents()).toBe(before);
    },
  );

  it.each([
    ['an empty text', { text: '   ' }, 'body.text'],
    ['a text over 5000 characters', { text: 'x'.repeat(5001) }, 'body.text'],
    ['a NUL in the text', { text: 'a\u0000b' }, 'body.text'],
    ['an attachment id that is not a uuid', { attachmentIds: ['nope'] }, 'body.attachmentIds.0'],
    [
      'more than 10 attachments',
      { attachmentIds: Array.from({ length: 11 }, () => randomUUID()) },
      'body.attachmentIds',
    ],
    ['an unknown field', { rating: 5 }, 'body.rating'],
    ['a conversation id that is no provider id', { conversationId: '12/../34' }, 'body.conversationId'],
    ['a ticket id over 64 characters', { ticketId: '9'.repeat(65) }, 'body.ticketId'],
  ])('refuses %s with 400', async (_label, body, path) => {
    const answer = await file('dora', body);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: 'validation_failed', errors: [{ path }] });
  });

  it('refuses someone else’s conversation or ticket with 403, and an unknown one with 404', async () => {
    const conversationId = await conversationOf('eli');
    const ticketId = await ticketOf('eli');
    await conversationOf('finn');
    const before = await complaintEvents();
    for (const user of ['finn', 'no-contact-yet']) {
      const onConversation = await file(user, { conversationId });
      expect(onConversation.status).toBe(403);
      expect(onConversation.json).toMatchObject({ code: 'forbidden' });
      const onTicket = await file(user, { ticketId });
      expect(onTicket.status).toBe(403);
      expect(onTicket.json).toMatchObject({ code: 'forbidden' });
    }
    expect((await file('finn', { conversationId: '999999999' })).status).toBe(404);
    expect((await file('finn', { ticketId: '999999999' })).status).toBe(404);
    expect(await complaintEvents()).toBe(before);
  });

  it('refuses someone else’s upload with 403 (even beside one of the caller’s own), and an unknown one with 404', async () => {
    const theirs = await upload('gia');
    const mine = await upload('hal');
    const before = await complaintEvents();
    const answer = await file('hal', { attachmentIds: [mine, theirs] });
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({ code: 'forbidden' });
    expect((await file('hal', { attachmentIds: [randomUUID()] })).status).toBe(404);
    expect(await complaintEvents()).toBe(before);
  });

  it('files once per Idempotency-Key: a retry answers the same complaint', async () => {
    const key = { 'idempotency-key': `complaint-${randomUUID()}` };
    const first = await file('ida', {}, key);
    const again = await file('ida', {}, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    expect(await listOf('ida')).toHaveLength(1);
  });

  it('never logs the text', async () => {
    expect((await file('jo', {})).status).toBe(201);
    expect(used.running.logs.text).not.toContain('complaint-text-7d1e');
  });
});

describe('the note at Intercom, through the service’s own wiring', () => {
  it('a filed complaint leaves a note on the user’s contact naming the reason, never the text', async () => {
    await conversationOf('quin');
    const filedNow = await file('quin', {});
    expect(filedNow.status).toBe(201);
    const notesOfQuin = () =>
      [...sandbox().state.notes.values()].filter((n) => n.contactId === contactOf('quin')).map((n) => n.body);
    const notes = await eventually(
      () => Promise.resolve(notesOfQuin()),
      (found) => found.length === 1,
      10_000,
    );
    expect(notes[0]).toContain('Rude operator');
    expect(notes[0]).not.toContain('complaint-text-7d1e');
  });
});

describe('GET /api/complaints', () => {
  it('lists only the caller’s own complaints, newest first, as a poll with ETag and 304', async () => {
    const first = filed.parse((await file('kit', {})).json);
    const second = filed.parse((await file('kit', {})).json);
    await file('lou', {});
    const res = await api.get('kit', '/complaints');
    expect(res.status).toBe(200);
    expect(listed.parse(res.json).items.map((c) => c.id)).toEqual([second.id, first.id]);
    const etag = res.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    expect(res.headers.get('x-poll-interval')).toMatch(/^\d+$/);

    const unchanged = await api.get('kit', '/complaints', { 'if-none-match': etag });
    expect(unchanged.status).toBe(304);
    await file('kit', {});
    expect((await api.get('kit', '/complaints', { 'if-none-match': etag })).status).toBe(200);
  });

  it('is empty for a user with none', async () => {
    expect(await listOf('nobody-complained')).toEqual([]);
  });
});
