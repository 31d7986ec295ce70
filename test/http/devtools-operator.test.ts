import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { signWebhook } from '../../src/integrations/intercom/sandbox/index.ts';
import { useRunningApp } from '../support/app.ts';
import { clientApi, requireSandbox } from '../support/chat.ts';
import { eventually } from '../support/eventually.ts';

// The devtools' operator actions (API.md `POST /api/devtools/...`): what a teammate does in Intercom's inbox,
// on the caller's own records, done through the sandbox so that each reaches the service as a signed webhook.

const service = useRunningApp({ env: { ENABLE_DEVTOOLS: '1' } });
const api = clientApi(() => service.running.url);
const sandbox = () => requireSandbox(service.running.support.sandbox);

const sent = z.object({ conversationId: z.string() });
const action = z.object({ partId: z.string(), notificationId: z.string() });
const newTicket = z.object({ ticketId: z.string(), notificationId: z.string() });
const thread = z.object({
  state: z.string(),
  messages: z.array(z.object({ author: z.object({ type: z.string() }), body: z.string() })),
});
const ticket = z.object({ id: z.string(), title: z.string(), state: z.string(), stateLabel: z.string() });
const tickets = z.object({ items: z.array(ticket) });

const open = async (user: string, text = 'Hello?'): Promise<string> =>
  sent.parse((await api.post(user, '/conversations', { text })).json).conversationId;
const read = async (user: string, id: string) =>
  thread.parse((await api.get(user, `/conversations/${id}`)).json);
const readTicket = async (user: string, id: string) =>
  ticket.parse((await api.get(user, `/tickets/${id}`)).json);

/** The one delivery of a notification: accepted by the service (200) and signed as Intercom signs. */
function expectSignedDelivery(notificationId: string, topic: string): void {
  const delivery = sandbox().operator.deliveries.find((d) => d.notificationId === notificationId);
  expect(delivery, topic).toMatchObject({ topic, status: 200, ok: true });
  const secret = service.running.support.webhookSecret ?? '';
  expect(delivery?.signature).toBe(signWebhook(delivery?.body ?? '', secret));
}

const pushesOf = (user: string) =>
  service.db.pool.any(
    sql.type(
      z.object({
        source_id: z.string(),
        category: z.string(),
        ticket_id: z.string().nullable(),
        csat: z.boolean(),
      }),
    )`SELECT source_id, category, ticket_id, csat FROM push_log WHERE user_id = ${user} ORDER BY id`,
  );

describe('devtools operator actions', () => {
  it("close, reopen, snooze and unsnooze the caller's conversation, each through a signed webhook", async () => {
    const id = await open('ivy');

    const closed = await api.post('ivy', `/devtools/conversations/${id}/close`, { text: 'Solved, bye!' });
    expect(closed.status).toBe(202);
    const closing = action.parse(closed.json);
    expectSignedDelivery(closing.notificationId, 'conversation.admin.closed');
    const afterClose = await eventually(
      () => read('ivy', id),
      (c) => c.state === 'closed',
    );
    expect(afterClose.messages.at(-1)).toMatchObject({
      author: { type: 'operator' },
      body: '<p>Solved, bye!</p>',
    });
    // A teammate's close is recorded like any close.
    await eventually(
      () =>
        service.db.pool.anyFirst(sql.type(z.object({ notification_id: z.string() }))`
          SELECT notification_id FROM conversation_durations WHERE conversation_id = ${id}`),
      (rows) => rows.length === 1 && rows[0] === closing.notificationId,
    );
    const twice = await api.post('ivy', `/devtools/conversations/${id}/close`, {});
    expect(twice.status).toBe(409);
    expect(twice.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(twice.json).toMatchObject({ code: 'conflict' });

    const reopened = await api.post('ivy', `/devtools/conversations/${id}/reopen`, undefined);
    expect(reopened.status).toBe(202);
    expectSignedDelivery(action.parse(reopened.json).notificationId, 'conversation.admin.opened');
    await eventually(
      () => read('ivy', id),
      (c) => c.state === 'open',
    );
    expect((await api.post('ivy', `/devtools/conversations/${id}/reopen`, undefined)).status).toBe(409);

    const until = new Date(Date.now() + 3_600_000);
    const snoozed = await api.post('ivy', `/devtools/conversations/${id}/snooze`, {
      until: until.toISOString(),
    });
    expect(snoozed.status).toBe(202);
    expectSignedDelivery(action.parse(snoozed.json).notificationId, 'conversation.admin.snoozed');
    await eventually(
      () => read('ivy', id),
      (c) => c.state === 'snoozed',
    );
    expect(sandbox().state.conversations.get(id)?.snoozedUntil).toBe(Math.ceil(until.getTime() / 1000));

    const unsnoozed = await api.post('ivy', `/devtools/conversations/${id}/reopen`, undefined);
    expect(unsnoozed.status).toBe(202);
    expectSignedDelivery(action.parse(unsnoozed.json).notificationId, 'conversation.admin.unsnoozed');
    await eventually(
      () => read('ivy', id),
      (c) => c.state === 'open',
    );
  });

  it('refuses a snooze that is not a future time', async () => {
    const id = await open('jon');
    for (const until of [new Date(Date.now() - 60_000).toISOString(), 'tomorrow', '2999-01-01T00:00:00Z']) {
      const refused = await api.post('jon', `/devtools/conversations/${id}/snooze`, { until });
      expect(refused.status, until).toBe(400);
      expect(refused.json).toMatchObject({ code: 'validation_failed' });
    }
    expect((await api.post('jon', `/devtools/conversations/${id}/snooze`, {})).status).toBe(400);
    expect(sandbox().state.conversations.get(id)?.state).toBe('open');
  });

  it('opens a ticket for the caller and moves it to resolved; the resolution pushes the CSAT prompt', async () => {
    // kim never wrote: the ticket makes her contact.
    const created = await api.post('kim', '/devtools/tickets', { title: 'Refund for order 42' });
    expect(created.status).toBe(201);
    const { ticketId, notificationId } = newTicket.parse(created.json);
    expectSignedDelivery(notificationId, 'ticket.created');
    const listed = await eventually(
      async () => tickets.parse((await api.get('kim', '/tickets')).json),
      (list) => list.items.length === 1,
    );
    expect(listed.items[0]).toMatchObject({ id: ticketId, title: 'Refund for order 42', state: 'submitted' });

    const seen: string[] = [];
    for (const state of ['in_progress', 'waiting_on_customer'] as const) {
      const moved = await api.post('kim', `/devtools/tickets/${ticketId}/state`, { state });
      expect(moved.status, state).toBe(202);
      const { notificationId: id } = action.parse(moved.json);
      expectSignedDelivery(id, 'ticket.state.updated');
      seen.push(id);
      await eventually(
        () => readTicket('kim', ticketId),
        (t) => t.state === state,
      );
    }
    const again = await api.post('kim', `/devtools/tickets/${ticketId}/state`, {
      state: 'waiting_on_customer',
    });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: 'conflict' });

    const resolved = await api.post('kim', `/devtools/tickets/${ticketId}/state`, { state: 'resolved' });
    expect(resolved.status).toBe(202);
    const resolution = action.parse(resolved.json);
    expectSignedDelivery(resolution.notificationId, 'ticket.resolved');
    const stateUpdate = sandbox().operator.notifications.at(-2);
    expect(stateUpdate?.topic).toBe('ticket.state.updated');
    expectSignedDelivery(stateUpdate?.id ?? '', 'ticket.state.updated');
    await eventually(
      () => readTicket('kim', ticketId),
      (t) => t.state === 'resolved',
    );

    // One push per state change, and the resolution's carries csat (the state update to resolved pushes none).
    const pushes = await eventually(
      () => pushesOf('kim'),
      (rows) => rows.some((row) => row.csat),
    );
    expect(pushes).toHaveLength(3);
    expect(pushes).toEqual(
      expect.arrayContaining([
        { source_id: seen[0], category: 'ticket', ticket_id: ticketId, csat: false },
        { source_id: seen[1], category: 'ticket', ticket_id: ticketId, csat: false },
        { source_id: resolution.notificationId, category: 'ticket', ticket_id: ticketId, csat: true },
      ]),
    );
    expect((await api.post('kim', `/devtools/tickets/${ticketId}/state`, { state: 'resolved' })).status).toBe(
      409,
    );
  });

  it("acts on the caller's own records only: 403 for someone else's, 404 for unknown ones, nothing sent", async () => {
    const id = await open('lou', 'Private');
    const created = await api.post('lou', '/devtools/tickets', { title: 'Mine' });
    const { ticketId } = newTicket.parse(created.json);
    await eventually(
      async () => tickets.parse((await api.get('lou', '/tickets')).json),
      (list) => list.items.length === 1,
    );
    const sentBefore = sandbox().operator.notifications.length;
    const attempts = [
      [`/devtools/conversations/${id}/close`, {}],
      [`/devtools/conversations/${id}/reopen`, undefined],
      [`/devtools/conversations/${id}/snooze`, { until: new Date(Date.now() + 60_000).toISOString() }],
      [`/devtools/tickets/${ticketId}/state`, { state: 'resolved' }],
      [`/devtools/conversations/${id}/note`, { text: 'not yours' }],
      [`/devtools/tickets/${ticketId}/reply`, { text: 'not yours' }],
      [`/devtools/conversations/${id}/assign`, undefined],
      [`/devtools/tickets/${ticketId}/note`, { text: 'not yours' }],
    ] as const;
    const refuse = async () => {
      for (const [path, body] of attempts) {
        const refused = await api.post('max', path, body);
        expect(refused.status, path).toBe(403);
        expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(refused.json).toMatchObject({ code: 'forbidden' });
      }
    };
    // max has no contact yet, then one of his own: neither makes lou's records his.
    await refuse();
    await open('max', 'Mine');
    await refuse();
    // Only max's own conversation.user.created was sent.
    expect(
      sandbox()
        .operator.notifications.slice(sentBefore)
        .map((n) => n.topic),
    ).toEqual(['conversation.user.created']);
    expect(sandbox().state.conversations.get(id)?.state).toBe('open');
    expect(sandbox().state.tickets.get(ticketId)?.category).toBe('submitted');

    for (const [path, body] of [
      ['/devtools/conversations/987654321/close', {}],
      ['/devtools/conversations/987654321/reopen', undefined],
      ['/devtools/conversations/987654321/snooze', { until: new Date(Date.now() + 60_000).toISOString() }],
      ['/devtools/tickets/987654321/state', { state: 'in_progress' }],
      ['/devtools/conversations/987654321/note', { text: 'x' }],
      ['/devtools/tickets/987654321/reply', { text: 'x' }],
      ['/devtools/conversations/987654321/assign', undefined],
      ['/devtools/tickets/987654321/note', { text: 'x' }],
    ] as const) {
      const unknown = await api.post('lou', path, body);
      expect(unknown.status, path).toBe(404);
      expect(unknown.json).toMatchObject({ code: 'not_found' });
    }
  });

  it('checks its input, needs a session, and is in the OpenAPI document', async () => {
    const id = await open('ned');
    for (const [path, body] of [
      ['/devtools/tickets', {}],
      ['/devtools/tickets', { title: '' }],
      ['/devtools/tickets', { title: 'two\nlines' }],
      ['/devtools/tickets', { title: 'a\u0000b' }],
      ['/devtools/tickets', { title: 'x'.repeat(201) }],
      ['/devtools/tickets', { title: 'ok', extra: 1 }],
      [`/devtools/tickets/1/state`, { state: 'closed' }],
      [`/devtools/conversations/${id}/close`, { text: 'a\u0000b' }],
      [`/devtools/conversations/${id}/close`, { body: 'unknown field' }],
      ['/devtools/conversations/a.b/close', {}],
      [`/devtools/conversations/${id}/note`, {}],
      [`/devtools/conversations/${id}/note`, { text: '' }],
      ['/devtools/tickets/1/reply', { text: 'a\u0000b' }],
      ['/devtools/tickets/1/note', {}],
      ['/devtools/tickets/1/note', { text: 'a\u0000b' }],
      ['/devtools/conversations/a.b/assign', {}],
    ] as const) {
      const refused = await api.post('ned', path, body);
      expect(refused.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const base = service.running.url;
    const paths = [
      `/api/devtools/conversations/${id}/close`,
      `/api/devtools/conversations/${id}/snooze`,
      `/api/devtools/conversations/${id}/reopen`,
      '/api/devtools/tickets',
      '/api/devtools/tickets/1/state',
      `/api/devtools/conversations/${id}/note`,
      '/api/devtools/tickets/1/reply',
      `/api/devtools/conversations/${id}/assign`,
      '/api/devtools/tickets/1/note',
      '/api/devtools/archive-contact',
    ];
    for (const path of paths) {
      expect((await fetch(`${base}${path}`, { method: 'POST' })).status, path).toBe(401);
    }
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/devtools/conversations/{id}/close',
        '/api/devtools/conversations/{id}/snooze',
        '/api/devtools/conversations/{id}/reopen',
        '/api/devtools/tickets',
        '/api/devtools/tickets/{id}/state',
        '/api/devtools/conversations/{id}/note',
        '/api/devtools/tickets/{id}/reply',
        '/api/devtools/conversations/{id}/assign',
        '/api/devtools/tickets/{id}/note',
      ]),
    );
  });

  it('a note stays internal; a ticket reply shows on the ticket and pushes `ticket`', async () => {
    const id = await open('oda');
    const noted = await api.post('oda', `/devtools/conversations/${id}/note`, { text: 'VIP customer' });
    expect(noted.status).toBe(202);
    const note = action.parse(noted.json);
    expectSignedDelivery(note.notificationId, 'conversation.admin.noted');
    expect(sandbox().state.conversations.get(id)?.parts.at(-1)).toMatchObject({
      id: note.partId,
      partType: 'note',
    });
    // The webhook refreshed the cached conversation: a reply after the note shows, the note never does.
    await api.post('oda', '/devtools/operator-reply', { conversationId: id, text: 'On it' });
    const thread = await eventually(
      () => read('oda', id),
      (c) => c.messages.length === 2,
    );
    expect(thread.messages.map((m) => m.body)).toEqual(['<p>Hello?</p>', '<p>On it</p>']);

    const { ticketId } = newTicket.parse(
      (await api.post('oda', '/devtools/tickets', { title: 'Card' })).json,
    );
    const replied = await api.post('oda', `/devtools/tickets/${ticketId}/reply`, { text: 'Sent a new one' });
    expect(replied.status).toBe(202);
    const answer = action.parse(replied.json);
    expectSignedDelivery(answer.notificationId, 'ticket.admin.replied');
    const withReply = z.object({ parts: z.array(z.object({ id: z.string(), body: z.string().nullable() })) });
    const shown = await eventually(
      async () => withReply.parse((await api.get('oda', `/tickets/${ticketId}`)).json),
      (t) => t.parts.some((part) => part.id === answer.partId),
    );
    expect(shown.parts.find((part) => part.id === answer.partId)?.body).toBe('<p>Sent a new one</p>');
    const pushes = await eventually(
      () => pushesOf('oda'),
      (rows) => rows.some((row) => row.source_id === answer.notificationId),
    );
    expect(pushes.find((row) => row.source_id === answer.notificationId)).toEqual({
      source_id: answer.notificationId,
      category: 'ticket',
      ticket_id: ticketId,
      csat: false,
    });
    // The note pushed nothing.
    expect(pushes.some((row) => row.source_id === note.notificationId)).toBe(false);

    // An assignment and a ticket note reach the service as signed webhooks, and neither is shown.
    const assigned = action.parse(
      (await api.post('oda', `/devtools/conversations/${id}/assign`, undefined)).json,
    );
    expectSignedDelivery(assigned.notificationId, 'conversation.admin.assigned');
    const ticketNote = action.parse(
      (await api.post('oda', `/devtools/tickets/${ticketId}/note`, { text: 'Ask finance' })).json,
    );
    expectSignedDelivery(ticketNote.notificationId, 'ticket.note.created');
    await sandbox().operator.webhooksIdle();
    expect((await read('oda', id)).messages).toHaveLength(2);
    const parts = withReply.parse((await api.get('oda', `/tickets/${ticketId}`)).json).parts;
    expect(parts.some((part) => part.id === ticketNote.partId)).toBe(false);
  });

  it("archive-contact: a teammate archives the caller's contact; the next request brings it back", async () => {
    const id = await open('pia');
    const contactId = sandbox().state.conversations.get(id)?.contactId ?? '';
    expect(sandbox().state.contacts.get(contactId)?.archived).toBe(false);
    const archived = await api.post('pia', '/devtools/archive-contact', undefined);
    expect(archived.status).toBe(204);
    expect(sandbox().state.contacts.get(contactId)?.archived).toBe(true);
    // As with Intercom: the archived contact answers 404, the service meets the 409 and unarchives it.
    const again = await api.post('pia', '/conversations', { text: 'Still there?' });
    expect(again.status).toBe(201);
    expect(sandbox().state.contacts.get(contactId)?.archived).toBe(false);
    const second = sent.parse(again.json).conversationId;
    expect(sandbox().state.conversations.get(second)?.contactId).toBe(contactId);
    // Someone without a contact has nothing to archive.
    const none = await api.post('quin', '/devtools/archive-contact', undefined);
    expect(none.status).toBe(404);
  });

  it("every teammate action of the sandbox's operator has a devtools route in the OpenAPI document", async () => {
    // The operator's teammate actions, each with the devtools route that does it on the caller's records.
    const routes: Record<string, string> = {
      reply: 'POST /api/devtools/operator-reply',
      note: 'POST /api/devtools/conversations/{id}/note',
      close: 'POST /api/devtools/conversations/{id}/close',
      snooze: 'POST /api/devtools/conversations/{id}/snooze',
      open: 'POST /api/devtools/conversations/{id}/reopen',
      assign: 'POST /api/devtools/conversations/{id}/assign',
      createTicket: 'POST /api/devtools/tickets',
      setTicketState: 'POST /api/devtools/tickets/{id}/state',
      resolveTicket: 'POST /api/devtools/tickets/{id}/state',
      replyToTicket: 'POST /api/devtools/tickets/{id}/reply',
      noteOnTicket: 'POST /api/devtools/tickets/{id}/note',
      deleteContact: 'POST /api/devtools/wipe-contact',
      archiveContact: 'POST /api/devtools/archive-contact',
    };
    // Knobs of the whole sandbox (every user's calls and webhooks), for tests in process: no devtools route.
    const knobs = [
      'setSearchLag',
      'failNext',
      'failFor',
      'clearFaults',
      'redeliver',
      'holdWebhooks',
      'releaseWebhooks',
      'webhooksIdle',
      'notifications',
      'deliveries',
    ];
    expect(Object.keys(sandbox().operator).toSorted()).toEqual([...Object.keys(routes), ...knobs].toSorted());
    const doc = z
      .object({ paths: z.record(z.string(), z.record(z.string(), z.unknown())) })
      .parse(await (await fetch(`${service.running.url}/openapi.json`)).json());
    const documented = z.object({
      operationId: z.string().min(1),
      tags: z.tuple([z.literal('devtools')]),
      summary: z.string().min(1),
    });
    for (const [name, route] of Object.entries(routes)) {
      const [method = '', path = ''] = route.split(' ');
      const operation = documented.safeParse(doc.paths[path]?.[method.toLowerCase()]);
      expect(operation.success, `${name}: ${route}`).toBe(true);
    }
  });
});

const DEVTOOLS_PATHS = [
  '/api/devtools/conversations/1/close',
  '/api/devtools/conversations/1/snooze',
  '/api/devtools/conversations/1/reopen',
  '/api/devtools/tickets',
  '/api/devtools/tickets/1/state',
  '/api/devtools/conversations/1/note',
  '/api/devtools/tickets/1/reply',
  '/api/devtools/conversations/1/assign',
  '/api/devtools/tickets/1/note',
];

async function expectNotMounted(base: string): Promise<void> {
  const api = clientApi(() => base);
  for (const path of DEVTOOLS_PATHS) {
    const answer = await api.post('zed', path.replace(/^\/api/, ''), {});
    expect(answer.status, path).toBe(404);
  }
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
  const operatorPaths = Object.keys(doc.paths).filter((path) =>
    /^\/api\/devtools\/(conversations|tickets)/.test(path),
  );
  expect(operatorPaths).toEqual([]);
}

describe('without ENABLE_DEVTOOLS', () => {
  const plain = useRunningApp();
  it('mounts none of the operator actions', async () => {
    await expectNotMounted(plain.running.url);
    expect(plain.running.support.sandbox).not.toBeNull();
  });
});

describe('with ENABLE_DEVTOOLS but Intercom itself instead of the sandbox', () => {
  const real = useRunningApp({
    env: {
      ENABLE_DEVTOOLS: '1',
      SUPPORT_ACCESS_TOKEN: 'test-intercom-token',
      SUPPORT_CLIENT_SECRET: 'test-intercom-client-secret',
      // Nothing listens there: no call may leave the machine.
      SUPPORT_BASE_URL: 'http://127.0.0.1:9',
    },
  });
  it('mounts none of the operator actions', async () => {
    expect(real.running.support.sandbox).toBeNull();
    await expectNotMounted(real.running.url);
  });
});
