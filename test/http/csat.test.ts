import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useRunningApp } from '../support/app.ts';
import { clientApi, requireSandbox, sandboxCalls, webhooksSettled } from '../support/chat.ts';
import { eventually } from '../support/eventually.ts';

// The polls' own cost is what these tests count: the notes at Intercom (which touch the rated records there)
// run in the last block, on an app of their own with every processor.
const service = useRunningApp({ processors: [] });
const api = clientApi(() => service.running.url);
const sandbox = () => requireSandbox(service.running.support.sandbox);

const ratingOf = z.strictObject({
  id: z.uuid(),
  targetType: z.enum(['conversation', 'ticket']),
  targetId: z.string(),
  rating: z.number(),
});
const conversationRow = z.object({ id: z.string(), rated: z.boolean(), rating: z.number().optional() });
const ticketRow = conversationRow.extend({ state: z.string() });

const contactOf = (user: string) =>
  [...sandbox().state.contacts.values()].find((c) => c.externalId === user)?.id ?? '';

/** A conversation of `user`'s, closed by the team, once the user's poll shows it closed. */
async function closedConversation(user: string): Promise<string> {
  const sent = await api.post(user, '/conversations', { text: 'Help me' });
  expect(sent.status).toBe(201);
  const { conversationId } = z.object({ conversationId: z.string() }).parse(sent.json);
  await sandbox().operator.close(conversationId);
  await eventually(
    async () => (await api.get(user, `/conversations/${conversationId}`)).json as { state: string },
    (c) => c.state === 'closed',
  );
  return conversationId;
}

/** A ticket of `user`'s (who has a contact already), resolved by the team once `resolved` says so. */
async function ticketOf(user: string, resolved: boolean): Promise<string> {
  const { id } = await sandbox().operator.createTicket({ contactId: contactOf(user), title: 'Refund' });
  if (resolved) await sandbox().operator.resolveTicket(id);
  await eventually(
    async () => (await api.get(user, `/tickets/${id}`)).json as { state: string },
    (t) => t.state === (resolved ? 'resolved' : 'submitted'),
  );
  return id;
}

const rateAs = (user: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  api.post(user, '/csat', body, headers);

const settled = () => webhooksSettled(sandbox(), service.db.pool);

describe('POST /api/csat', () => {
  it("rates the caller's closed conversation: 201, then the same rating is a 200 no-op, another one 409", async () => {
    const id = await closedConversation('cara');
    const first = await rateAs('cara', {
      targetType: 'conversation',
      targetId: id,
      rating: 4,
      comment: 'Kind',
    });
    expect(first.status).toBe(201);
    const rating = ratingOf.parse(first.json);
    expect(rating).toEqual({ id: rating.id, targetType: 'conversation', targetId: id, rating: 4 });

    const again = await rateAs('cara', { targetType: 'conversation', targetId: id, rating: 4 });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(rating);
    const other = await rateAs('cara', { targetType: 'conversation', targetId: id, rating: 2 });
    expect(other.status).toBe(409);
    expect(other.json).toMatchObject({ code: 'already_rated' });
    expect(other.headers.get('content-type')).toContain('application/problem+json');

    const rows = await service.db.pool.any(
      sql.type(
        z.object({ user_id: z.string(), rating: z.number(), comment: z.string().nullable() }),
      )`SELECT user_id, rating, comment FROM csat_ratings WHERE target_id = ${id}`,
    );
    expect(rows).toEqual([{ user_id: 'cara', rating: 4, comment: 'Kind' }]);
  });

  it('refuses an open conversation or an unresolved ticket (409 conflict), and rates a resolved ticket', async () => {
    const sent = await api.post('dora', '/conversations', { text: 'Still open' });
    const { conversationId } = z.object({ conversationId: z.string() }).parse(sent.json);
    const open = await rateAs('dora', { targetType: 'conversation', targetId: conversationId, rating: 5 });
    expect(open.status).toBe(409);
    expect(open.json).toMatchObject({ code: 'conflict' });

    const pending = await ticketOf('dora', false);
    const early = await rateAs('dora', { targetType: 'ticket', targetId: pending, rating: 5 });
    expect(early.status).toBe(409);
    const resolved = await ticketOf('dora', true);
    const rated = await rateAs('dora', { targetType: 'ticket', targetId: resolved, rating: 1 });
    expect(rated.status).toBe(201);
    expect(rated.json).toMatchObject({ targetType: 'ticket', targetId: resolved, rating: 1 });
  });

  it("answers 403 for someone else's conversation or ticket, 404 for an unknown one", async () => {
    const id = await closedConversation('emil');
    const ticket = await ticketOf('emil', true);
    for (const user of ['fred', 'never-chatted']) {
      const conversation = await rateAs(user, { targetType: 'conversation', targetId: id, rating: 3 });
      expect(conversation.status, user).toBe(403);
      expect(conversation.json).toMatchObject({ code: 'forbidden' });
      const other = await rateAs(user, { targetType: 'ticket', targetId: ticket, rating: 3 });
      expect(other.status, user).toBe(403);
    }
    const unknown = await rateAs('emil', { targetType: 'conversation', targetId: '999999999', rating: 3 });
    expect(unknown.status).toBe(404);
    const noTicket = await rateAs('emil', { targetType: 'ticket', targetId: '999999998', rating: 3 });
    expect(noTicket.status).toBe(404);
    const rows = await service.db.pool.anyFirst(sql.type(z.object({ target_id: z.string() }))`
      SELECT target_id FROM csat_ratings WHERE user_id IN ('fred', 'never-chatted', 'emil')`);
    expect(rows).toEqual([]);
  });

  it('validates the body: stars 1 to 5, a known target type, a comment up to 1000 characters', async () => {
    const id = await closedConversation('gina');
    const base = { targetType: 'conversation', targetId: id };
    for (const body of [
      { ...base, rating: 0 },
      { ...base, rating: 6 },
      { ...base, rating: 2.5 },
      { ...base, rating: '4' },
      { ...base },
      { ...base, targetType: 'post', rating: 4 },
      { ...base, targetId: '../me', rating: 4 },
      { ...base, rating: 4, comment: 'x'.repeat(1001) },
      { ...base, rating: 4, comment: 'nul\u0000' },
      { ...base, rating: 4, extra: true },
    ]) {
      const answer = await rateAs('gina', body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.json).toMatchObject({ code: 'validation_failed' });
    }
    // An empty comment (after trimming) is no comment; 1000 characters are fine.
    expect((await rateAs('gina', { ...base, rating: 5, comment: '   ' })).status).toBe(201);
    const comment = await service.db.pool.oneFirst(sql.type(z.object({ comment: z.string().nullable() }))`
      SELECT comment FROM csat_ratings WHERE target_id = ${id}`);
    expect(comment).toBeNull();
  });

  it('never logs the comment', async () => {
    const id = await closedConversation('hugo');
    const secret = `comment-never-logged-${Date.now()}`;
    const rated = await rateAs('hugo', {
      targetType: 'conversation',
      targetId: id,
      rating: 2,
      comment: secret,
    });
    expect(rated.status).toBe(201);
    // A refused one neither: too long, so it fails validation with the words in the body.
    await rateAs('hugo', { targetType: 'conversation', targetId: id, rating: 2, comment: secret.repeat(40) });
    expect(service.running.logs.text).not.toContain(secret);
  });

  it('answers a retry with the same Idempotency-Key with the first 201', async () => {
    const id = await closedConversation('ines');
    const body = { targetType: 'conversation', targetId: id, rating: 3 };
    const headers = { 'idempotency-key': `csat-${id}` };
    const first = await rateAs('ines', body, headers);
    const retry = await rateAs('ines', body, headers);
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(retry.json).toEqual(first.json);
    // The same key for another rating is refused, and the first rating stands.
    const reused = await rateAs('ines', { ...body, rating: 5 }, headers);
    expect(reused.status).toBe(422);
    expect(reused.json).toMatchObject({ code: 'idempotency_key_reused' });
  });
});

describe('the rated overlay on the conversation and ticket polls', () => {
  it('shows rated and rating on /conversations/:id and rated on /conversations, with new ETags', async () => {
    const id = await closedConversation('jane');
    await settled();
    const before = await api.get('jane', `/conversations/${id}`);
    const listBefore = await api.get('jane', '/conversations');
    expect(conversationRow.parse(before.json)).toEqual({ id, rated: false });
    expect(z.object({ items: z.array(conversationRow) }).parse(listBefore.json).items).toEqual([
      { id, rated: false },
    ]);
    const tag = before.headers.get('etag') ?? '';
    const listTag = listBefore.headers.get('etag') ?? '';
    const calls = sandboxCalls(sandbox(), 'GET', `/conversations/${id}`);

    expect((await rateAs('jane', { targetType: 'conversation', targetId: id, rating: 5 })).status).toBe(201);
    // Read-your-writes: the very next poll shows it, under a new tag.
    const after = await api.get('jane', `/conversations/${id}`, { 'if-none-match': tag });
    expect(after.status).toBe(200);
    expect(conversationRow.parse(after.json)).toEqual({ id, rated: true, rating: 5 });
    const newTag = after.headers.get('etag') ?? '';
    expect(newTag).not.toBe(tag);
    expect((await api.get('jane', `/conversations/${id}`, { 'if-none-match': newTag })).status).toBe(304);
    const list = await api.get('jane', '/conversations', { 'if-none-match': listTag });
    expect(list.status).toBe(200);
    expect(z.object({ items: z.array(conversationRow) }).parse(list.json).items).toEqual([
      { id, rated: true, rating: 5 },
    ]);
    // The overlay comes from our own table: Intercom was not asked again.
    expect(sandboxCalls(sandbox(), 'GET', `/conversations/${id}`)).toBe(calls);
    // Someone else's polls are not touched by it.
    expect((await api.get('kurt', '/conversations')).json).toEqual({ items: [] });
  });

  it('shows rated and rating on /tickets and /tickets/:id, with new ETags', async () => {
    await api.post('lena', '/conversations', { text: 'So that I have a contact' });
    const id = await ticketOf('lena', true);
    const other = await ticketOf('lena', true);
    await settled();
    const before = await api.get('lena', `/tickets/${id}`);
    const listBefore = await api.get('lena', '/tickets');
    expect(ticketRow.parse(before.json)).toEqual({ id, state: 'resolved', rated: false });
    const calls = sandboxCalls(sandbox(), 'GET', `/tickets/${id}`);

    expect((await rateAs('lena', { targetType: 'ticket', targetId: id, rating: 2 })).status).toBe(201);
    const after = await api.get('lena', `/tickets/${id}`, {
      'if-none-match': before.headers.get('etag') ?? '',
    });
    expect(after.status).toBe(200);
    expect(ticketRow.parse(after.json)).toEqual({ id, state: 'resolved', rated: true, rating: 2 });
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(
      (await api.get('lena', `/tickets/${id}`, { 'if-none-match': after.headers.get('etag') ?? '' })).status,
    ).toBe(304);
    const list = await api.get('lena', '/tickets', {
      'if-none-match': listBefore.headers.get('etag') ?? '',
    });
    expect(list.status).toBe(200);
    expect(z.object({ items: z.array(ticketRow) }).parse(list.json).items).toEqual([
      { id, state: 'resolved', rated: true, rating: 2 },
      { id: other, state: 'resolved', rated: false },
    ]);
    expect(sandboxCalls(sandbox(), 'GET', `/tickets/${id}`)).toBe(calls);
  });
});

describe('the note at Intercom, through the service’s own wiring', () => {
  const wired = useRunningApp();
  const wiredApi = clientApi(() => wired.running.url);
  const wiredSandbox = () => requireSandbox(wired.running.support.sandbox);

  it('a rating writes a note and a csat-<n> tag on the conversation, after the 201', async () => {
    const sent = await wiredApi.post('nora', '/conversations', { text: 'Help me' });
    const { conversationId } = z.object({ conversationId: z.string() }).parse(sent.json);
    await wiredSandbox().operator.close(conversationId);
    await eventually(
      async () => (await wiredApi.get('nora', `/conversations/${conversationId}`)).json as { state: string },
      (c) => c.state === 'closed',
    );
    const rated = await wiredApi.post('nora', '/csat', {
      targetType: 'conversation',
      targetId: conversationId,
      rating: 5,
      comment: 'Words only the team lead may read',
    });
    expect(rated.status).toBe(201);
    const conversation = () => wiredSandbox().state.conversations.get(conversationId);
    await eventually(
      () => Promise.resolve(conversation()?.tags.length ?? 0),
      (tags) => tags === 1,
      10_000,
    );
    const notes = (conversation()?.parts ?? []).filter((p) => p.partType === 'note').map((p) => p.body ?? '');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('CSAT 5/5');
    expect(notes[0]).not.toContain('Words only the team lead may read');
  });
});
