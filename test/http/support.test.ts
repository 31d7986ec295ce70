import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { richTextSchema } from '../../src/chat/rich-text.ts';
import { contactOfUser } from '../../src/chat/user-contacts.ts';
import { verifyFileLinkToken } from '../../src/files/signed-urls.ts';
import { bearer, TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { clientApi, requireSandbox, sandboxCalls } from '../support/chat.ts';
import { eventually } from '../support/eventually.ts';
import { sessionToken } from '../support/jwt.ts';
import { expectPollInterval } from '../support/poll-interval.ts';

const service = useRunningApp({ env: { POLL_CHAT_MS: '4000' } });
const api = clientApi(() => service.running.url);
const sandbox = () => requireSandbox(service.running.support.sandbox);

const conversationOf = z.object({
  id: z.string(),
  state: z.string(),
  rated: z.boolean(),
  messages: z.array(
    z.object({
      id: z.string(),
      author: z.object({ type: z.string(), name: z.string().optional() }),
      body: z.string(),
      content: richTextSchema,
      attachments: z.array(z.object({ name: z.string(), url: z.string(), contentType: z.string() })),
      createdAt: z.string(),
    }),
  ),
});
const sentOf = z.object({
  conversationId: z.string(),
  messageId: z.string().optional(),
  created: z.boolean(),
});
const listOf = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      state: z.string(),
      unreadCount: z.number(),
      lastMessage: z.unknown().optional(),
    }),
  ),
});

const open = async (user: string, text: string) => {
  const sent = await api.post(user, '/conversations', { text });
  expect(sent.status).toBe(201);
  return sentOf.parse(sent.json);
};
const read = async (user: string, id: string) =>
  conversationOf.parse((await api.get(user, `/conversations/${id}`)).json);
const contactOf = (user: string) =>
  [...sandbox().state.contacts.values()].find((c) => c.externalId === user)?.id ?? null;
const pushesOf = (user: string) =>
  service.db.pool.any(sql.type(
    z.object({
      category: z.string(),
      conversation_id: z.string().nullable(),
      ticket_id: z.string().nullable(),
      csat: z.boolean(),
    }),
  )`
    SELECT category, conversation_id, ticket_id, csat FROM push_log WHERE user_id = ${user} ORDER BY id`);

describe('support chat over HTTP, against the Intercom sandbox', () => {
  it('opens a request: the first message creates the contact and the conversation', async () => {
    const sent = await open('amy', 'Hello <b>team</b>\nsecond line');
    expect(sent.created).toBe(true);
    expect(sent.messageId).toEqual(expect.any(String));
    expect(contactOf('amy')).not.toBeNull();

    const conversation = await read('amy', sent.conversationId);
    expect(conversation).toMatchObject({ id: sent.conversationId, state: 'open', rated: false });
    expect(conversation.messages).toEqual([
      expect.objectContaining({
        author: { type: 'user' },
        // Escaped: what the user typed never becomes markup in the team's inbox. Coming back from
        // Intercom it goes through the same sanitiser as operator HTML, and the tree keeps it as text.
        body: '<p>Hello &lt;b&gt;team&lt;/b&gt;<br />second line</p>',
        content: [
          {
            type: 'paragraph',
            children: [
              { type: 'text', text: 'Hello <b>team</b>' },
              { type: 'break' },
              { type: 'text', text: 'second line' },
            ],
          },
        ],
      }),
    ]);
    const list = listOf.parse((await api.get('amy', '/conversations')).json);
    expect(list.items.map((c) => c.id)).toEqual([sent.conversationId]);
  });

  it('appends a reply, and shows the operator reply that arrives through the webhook on the next poll', async () => {
    const { conversationId } = await open('bea', 'Where is my order?');
    const reply = await api.post('bea', '/conversations', { conversationId, text: 'Order 1234' });
    expect(reply.status).toBe(201);
    expect(sentOf.parse(reply.json)).toMatchObject({ conversationId, created: false });

    const first = await api.get('bea', `/conversations/${conversationId}`);
    expectPollInterval(first.headers.get('x-poll-interval'), 4000);
    const etag = first.headers.get('etag') ?? '';
    expect((await api.get('bea', `/conversations/${conversationId}`, { 'if-none-match': etag })).status).toBe(
      304,
    );

    await sandbox().operator.reply(conversationId, { body: 'It ships <i>today</i>.' });
    const after = await eventually(
      () => read('bea', conversationId),
      (c) => c.messages.length === 3,
    );
    expect(after.messages.map((m) => m.author.type)).toEqual(['user', 'user', 'operator']);
    expect(after.messages[2]?.author.name).toEqual(expect.any(String));
    // The operator reply asks for a push (logged, as no push service is configured).
    await eventually(
      () => pushesOf('bea'),
      (rows) => rows.length === 1,
    );
    expect(await pushesOf('bea')).toEqual([
      { category: 'chat', conversation_id: conversationId, ticket_id: null, csat: false },
    ]);
  });

  it('counts unread operator messages until the read marker moves', async () => {
    const { conversationId } = await open('cal', 'Hi');
    await sandbox().operator.reply(conversationId, { body: 'One' });
    await sandbox().operator.reply(conversationId, { body: 'Two' });
    const unread = async () =>
      (await api.get('cal', '/unread')).json as { conversations: number; tickets: number };
    await eventually(unread, (u) => u.conversations === 2);
    const list = listOf.parse((await api.get('cal', '/conversations')).json);
    expect(list.items[0]).toMatchObject({
      unreadCount: 2,
      lastMessage: expect.objectContaining({ preview: 'Two' }) as unknown,
    });

    const marked = await api.post('cal', `/conversations/${conversationId}/read`, {});
    expect(marked.status).toBe(204);
    expect((await unread()).conversations).toBe(0);
    // Intercom hears of it too.
    expect(sandbox().state.conversations.get(conversationId)?.read).toBe(true);
    expect(
      (await api.post('cal', `/conversations/${conversationId}/read`, { lastReadMessageId: 'nope' })).status,
    ).toBe(404);
  });

  it('never returns internal notes', async () => {
    const { conversationId } = await open('dee', 'Question');
    await sandbox().operator.note(conversationId, { body: 'internal: VIP customer' });
    await sandbox().operator.reply(conversationId, { body: 'Answer' });
    const conversation = await eventually(
      () => read('dee', conversationId),
      (c) => c.messages.length === 2,
    );
    expect(JSON.stringify(conversation)).not.toContain('VIP');
    expect(conversation.messages.map((m) => m.author.type)).toEqual(['user', 'operator']);
  });

  it('records the duration on close, and a user reply reopens the request', async () => {
    const { conversationId } = await open('eve', 'Please help');
    await sandbox().operator.close(conversationId);
    await eventually(
      () => read('eve', conversationId),
      (c) => c.state === 'closed',
    );
    const durations = await eventually(
      () =>
        service.db.pool.any(sql.type(z.object({ conversation_id: z.string() }))`
          SELECT conversation_id FROM conversation_durations WHERE conversation_id = ${conversationId}`),
      (rows) => rows.length === 1,
    );
    expect(durations).toHaveLength(1);

    await api.post('eve', '/conversations', { conversationId, text: 'Still broken' });
    expect((await read('eve', conversationId)).state).toBe('open');
    // One continuous thread: a new request is appended below the closed one.
    const second = await open('eve', 'Another thing');
    const list = listOf.parse((await api.get('eve', '/conversations')).json);
    expect(list.items.map((c) => c.id)).toEqual([conversationId, second.conversationId]);
  });

  it('makes a new contact when Intercom no longer knows the mapped one (deleted there, or a restarted sandbox)', async () => {
    await open('rex', 'first');
    const gone = contactOf('rex') ?? '';
    sandbox().operator.deleteContact(gone);
    const again = await open('rex', 'after the contact went away');
    expect(again.created).toBe(true);
    expect(contactOf('rex')).not.toBe(gone);
    expect(await contactOfUser(service.db.pool, 'rex')).toBe(contactOf('rex'));
  });

  it('answers 403 on every route for a conversation or ticket of someone else', async () => {
    const { conversationId } = await open('fay', 'Mine');
    await open('gus', 'His own');
    const ticket = await sandbox().operator.createTicket({
      contactId: contactOf('fay') ?? '',
      title: 'Refund',
    });
    for (const user of ['gus', 'nobody-yet']) {
      expect((await api.get(user, `/conversations/${conversationId}`)).status).toBe(403);
      expect((await api.post(user, '/conversations', { conversationId, text: 'intrude' })).status).toBe(403);
      expect((await api.post(user, `/conversations/${conversationId}/read`, {})).status).toBe(403);
      expect((await api.get(user, `/tickets/${ticket.id}`)).status).toBe(403);
    }
    expect(JSON.stringify(sandbox().state.conversations.get(conversationId))).not.toContain('intrude');
    expect((await api.get('gus', '/conversations/999999999')).status).toBe(404);
  });

  it('validates input: empty text, too many attachments, a reason in a reply, a bad id', async () => {
    expect((await api.post('hal', '/conversations', { text: '   ' })).status).toBe(400);
    expect((await api.post('hal', '/conversations', { text: 'x'.repeat(10_001) })).status).toBe(400);
    const ids = Array.from({ length: 11 }, () => crypto.randomUUID());
    expect((await api.post('hal', '/conversations', { text: 'x', attachmentIds: ids })).status).toBe(400);
    expect(
      (await api.post('hal', '/conversations', { conversationId: '1', text: 'x', reasonId: 'r' })).status,
    ).toBe(400);
    expect((await api.get('hal', '/conversations/..%2Fme')).status).toBe(400);
    expect((await api.get('hal', '/tickets/..%2Fme')).status).toBe(400);
    expect((await api.post('hal', '/conversations/1/read', { lastReadMessageId: 'a b' })).status).toBe(400);
    expect((await api.post('hal', '/conversations/1/read', { extra: true })).status).toBe(400);
    expect((await api.post('hal', '/conversations', { text: 'x', reasonId: 'no-such-reason' })).status).toBe(
      404,
    );
    expect(contactOf('hal')).toBeNull();
  });

  it('lists tickets with their external label; looking at one clears its unread badge; resolving asks for CSAT', async () => {
    await open('ivy', 'Ticket owner');
    const { id } = await sandbox().operator.createTicket({
      contactId: contactOf('ivy') ?? '',
      title: 'Broken screen',
    });
    const tickets = await eventually(
      async () =>
        (await api.get('ivy', '/tickets')).json as {
          items: { id: string; title: string; stateLabel: string }[];
        },
      (t) => t.items.length === 1,
    );
    expect(tickets.items[0]).toMatchObject({
      id,
      title: 'Broken screen',
      stateLabel: 'Submitted',
      rated: false,
    });
    expect(((await api.get('ivy', '/unread')).json as { tickets: number }).tickets).toBe(1);
    const detail = await api.get('ivy', `/tickets/${id}`);
    expect(detail.status).toBe(200);
    expect(((await api.get('ivy', '/unread')).json as { tickets: number }).tickets).toBe(0);

    await sandbox().operator.resolveTicket(id);
    const resolved = await eventually(
      async () =>
        (await api.get('ivy', `/tickets/${id}`)).json as { state: string; parts: { state?: string }[] },
      (t) => t.state === 'resolved',
    );
    expect(resolved.parts.at(-1)?.state).toBe('resolved');
    const pushes = await eventually(
      () => pushesOf('ivy'),
      (rows) => rows.some((r) => r.csat),
    );
    expect(pushes.filter((r) => r.csat)).toEqual([
      { category: 'ticket', conversation_id: null, ticket_id: id, csat: true },
    ]);
  });

  it('hands Intercom signed links to the user’s own uploads, which verify and expire', async () => {
    const form = new FormData();
    form.append('file', new Blob(['receipt text'], { type: 'text/plain' }), 'receipt.txt');
    const upload = await fetch(`${service.running.url}/api/files/upload`, {
      method: 'POST',
      headers: bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'jon')),
      body: form,
    });
    expect(upload.status).toBe(201);
    const file = z.object({ id: z.string() }).parse(await upload.json());
    expect((await api.post('kim', '/conversations', { text: 'x', attachmentIds: [file.id] })).status).toBe(
      403,
    );

    const { conversationId } = await open('jon', 'warm up');
    const sent = await api.post('jon', '/conversations', {
      conversationId,
      text: 'see file',
      attachmentIds: [file.id],
    });
    expect(sent.status).toBe(201);
    const message = (await read('jon', conversationId)).messages.at(-1);
    const link = message?.attachments[0]?.url ?? '';
    expect(link).toMatch(new RegExp(`^${service.running.url}/files/${file.id}\\?t=`));
    const fetched = await fetch(link);
    expect(fetched.status).toBe(200);
    expect(await fetched.text()).toBe('receipt text');
    expect((await fetch(link.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))).status).toBe(403);

    const token = new URL(link).searchParams.get('t') ?? '';
    const key = await service.db.pool.oneFirst(sql.type(z.object({ storage_key: z.string() }))`
      SELECT storage_key FROM files WHERE id = ${file.id}`);
    const later = new Date(Date.now() + 16 * 60_000);
    expect(verifyFileLinkToken(TEST_SECRETS.FILE_URL_SECRET, key, token)).toBe(true);
    expect(verifyFileLinkToken(TEST_SECRETS.FILE_URL_SECRET, key, token, later)).toBe(false);
  });

  it('makes one Intercom call for 100 concurrent polls of a cold conversation, and none while it stays warm', async () => {
    const { conversationId } = await open('lea', 'cold start');
    await sandbox().operator.reply(conversationId, { body: 'answer' });
    await eventually(
      () => pushesOf('lea'),
      (rows) => rows.length === 1,
    );
    const before = sandboxCalls(sandbox(), 'GET', `/conversations/${conversationId}`);
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => api.get('lea', `/conversations/${conversationId}`)),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(sandboxCalls(sandbox(), 'GET', `/conversations/${conversationId}`) - before).toBe(1);
    await Promise.all(Array.from({ length: 50 }, () => api.get('lea', `/conversations/${conversationId}`)));
    expect(sandboxCalls(sandbox(), 'GET', `/conversations/${conversationId}`) - before).toBe(1);
  });

  it('never writes message bodies or tokens to the logs', async () => {
    const { conversationId } = await open('max', 'my secret body text 7731');
    await sandbox().operator.reply(conversationId, { body: 'operator secret reply 9902' });
    await eventually(
      () => read('max', conversationId),
      (c) => c.messages.length === 2,
    );
    const logs = service.running.logs.text;
    expect(logs).not.toContain('secret body text 7731');
    expect(logs).not.toContain('operator secret reply 9902');
    expect(logs).not.toContain(sessionToken(TEST_SECRETS.JWT_SECRET, 'max').split('.')[2]);
  });
});
