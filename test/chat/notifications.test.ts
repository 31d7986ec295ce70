import { describe, expect, it } from 'vitest';
import {
  effectsOf,
  type NotificationEffects,
  notificationEventSchema,
  type NotificationRecord,
  toNotificationRecord,
} from '../../src/chat/notifications.ts';
import { createContact } from '../../src/integrations/intercom/sandbox/contacts.ts';
import {
  addAdminPart,
  addUserReply,
  changeState,
  createConversation,
} from '../../src/integrations/intercom/sandbox/conversations.ts';
import { renderConversation, renderTicket } from '../../src/integrations/intercom/sandbox/render.ts';
import { createState, type Part, type SandboxState } from '../../src/integrations/intercom/sandbox/state.ts';
import {
  changeTicketState,
  createTicket,
  replyToTicket,
} from '../../src/integrations/intercom/sandbox/tickets.ts';

// Items come from the sandbox's own renderers with plain-text bodies, as its webhooks send them (and as
// Intercom 2.15 does); the envelope is the one src/integrations/intercom/sandbox/webhooks.ts wraps them in.

const USER_TEXT = 'my card number is in this message';
const OPERATOR_TEXT = 'operator says something private';

let clock = 1_760_000_000_000;
const world = (): SandboxState => createState({ appIdCode: 'app_test', searchLagMs: 0, now: () => clock });
const later = (seconds: number) => {
  clock += seconds * 1000;
};

let sequence = 0;
function envelope(topic: string, item: unknown, createdAt = Math.floor(clock / 1000)) {
  sequence += 1;
  return {
    type: 'notification_event',
    app_id: 'app_test',
    data: { type: 'notification_event_data', item },
    links: {},
    id: `notif_${String(sequence)}`,
    topic,
    delivery_status: 'pending',
    delivery_attempts: 1,
    first_sent_at: createdAt,
    created_at: createdAt,
    self: null,
  };
}

/** A sandbox conversation with a user's first message, and its contact. */
function conversationOf(state: SandboxState) {
  const contact = createContact(state, { externalId: 'user-1', email: 'ann@example.com', name: 'Ann' });
  const { conversation } = createConversation(state, contact.id, USER_TEXT, []);
  return { contact, conversation };
}

const webhookItem = (state: SandboxState, conversationId: string, parts: readonly Part[]) => {
  const conversation = state.conversations.get(conversationId);
  if (!conversation) throw new Error('no such conversation');
  return renderConversation(state, conversation, parts, { plainText: true });
};

const ticketItem = (state: SandboxState, ticketId: string) => {
  const ticket = state.tickets.get(ticketId);
  if (!ticket) throw new Error('no such ticket');
  return renderTicket(state, ticket, { plainText: true });
};

/** Given a delivered body, when it is parsed and reduced: the record and what it does. */
function receive(body: unknown): { record: NotificationRecord; effects: NotificationEffects } {
  const record = toNotificationRecord(notificationEventSchema.parse(body));
  return { record, effects: effectsOf(record) };
}

const nothing: NotificationEffects = {
  invalidation: null,
  duration: null,
  pushes: [],
  forgetContactId: null,
};

describe('the minimal record', () => {
  it('keeps ids, topic, times and part kinds of a reply, and no body, name or email', () => {
    const state = world();
    const { contact, conversation } = conversationOf(state);
    later(30);
    const part = addAdminPart(state, conversation.id, {
      partType: 'comment',
      adminId: state.operator.id,
      body: OPERATOR_TEXT,
      attachments: [
        { name: 'x.png', url: 'https://files.example/x.png', contentType: 'image/png', filesize: 1 },
      ],
    });
    const body = envelope('conversation.admin.replied', webhookItem(state, conversation.id, [part]));
    expect(JSON.stringify(body)).toContain(OPERATOR_TEXT);

    const parsed = notificationEventSchema.parse(body);
    const { record } = receive(body);

    expect(record).toEqual({
      notificationId: body.id,
      topic: 'conversation.admin.replied',
      createdAt: body.created_at,
      conversation: { id: conversation.id, createdAt: conversation.createdAt },
      ticket: null,
      contactId: null,
      contactIds: [contact.id],
      parts: [{ id: part.id, partType: 'comment', authorType: 'admin', createdAt: part.createdAt }],
    });
    for (const text of [JSON.stringify(parsed), JSON.stringify(record)]) {
      for (const secret of [
        OPERATOR_TEXT,
        USER_TEXT,
        'Ann',
        'ann@example.com',
        'files.example',
        'Sandbox Operator',
      ]) {
        expect(text).not.toContain(secret);
      }
    }
  });

  it('keeps a ticket state category, also from an older payload that sends it as a string', () => {
    const state = world();
    const contact = createContact(state, { externalId: 'user-2' });
    const ticket = createTicket(state, {
      contactId: contact.id,
      title: 'Refund please',
      adminId: state.operator.id,
    });
    const item = ticketItem(state, ticket.id);
    const { record } = receive(envelope('ticket.created', item));
    expect(record.ticket).toEqual({ id: ticket.id, stateCategory: 'submitted' });
    expect(JSON.stringify(record)).not.toContain('Refund please');

    const legacy = receive(envelope('ticket.created', { ...item, ticket_state: 'in_progress' }));
    expect(legacy.record.ticket).toEqual({ id: ticket.id, stateCategory: 'in_progress' });
  });

  it('tolerates numeric ids and keeps only the newest 50 parts', () => {
    const parts = Array.from({ length: 60 }, (_, i) => ({
      id: 5000 + i,
      part_type: 'comment',
      body: 'words',
      created_at: 1_760_000_000 + i,
      author: { type: 'admin', id: 7, name: 'Op' },
    }));
    const { record } = receive(
      envelope('conversation.admin.replied', {
        type: 'conversation',
        id: 42,
        created_at: 1_760_000_000,
        contacts: { type: 'contact.list', contacts: [{ type: 'contact', id: 'c1' }] },
        conversation_parts: { type: 'conversation_part.list', conversation_parts: parts, total_count: 60 },
      }),
    );
    expect(record.conversation?.id).toBe('42');
    expect(record.parts).toHaveLength(50);
    expect(record.parts[0]?.id).toBe('5010');
    expect(record.parts.at(-1)?.id).toBe('5059');
  });

  it.each([
    ['another envelope type', { type: 'event' }],
    ['no id', { id: undefined }],
    ['no topic', { topic: undefined }],
    ['no item', { data: {} }],
    ['a conversation item without an id', { data: { item: { type: 'conversation', created_at: 1 } } }],
    ['a ticket item with a wrong id', { data: { item: { type: 'ticket', id: { nested: true } } } }],
    ['a contact item without an id', { data: { item: { type: 'contact' } } }],
  ])('refuses %s', (_name, change) => {
    const body = {
      ...envelope('conversation.admin.replied', { type: 'conversation', id: '1', created_at: 1 }),
      ...change,
    };
    expect(notificationEventSchema.safeParse(body).success).toBe(false);
  });
});

describe('what a notification does', () => {
  it('given an operator reply, when processed, then the conversation is invalidated and its contact pushed (chat)', () => {
    const state = world();
    const { contact, conversation } = conversationOf(state);
    const part = addAdminPart(state, conversation.id, {
      partType: 'comment',
      adminId: state.operator.id,
      body: OPERATOR_TEXT,
      attachments: [],
    });
    const body = envelope('conversation.admin.replied', webhookItem(state, conversation.id, [part]));
    expect(receive(body).effects).toEqual({
      ...nothing,
      invalidation: { contactIds: [contact.id], conversationId: conversation.id },
      pushes: [
        { sourceId: body.id, contactId: contact.id, category: 'chat', conversationId: conversation.id },
      ],
    });
  });

  it('given a bot reply (conversation.operator.replied), then a chat push too', () => {
    const body = envelope('conversation.operator.replied', {
      type: 'conversation',
      id: '77',
      created_at: 1_760_000_000,
      contacts: { type: 'contact.list', contacts: [{ type: 'contact', id: 'c7', external_id: 'u7' }] },
      conversation_parts: {
        type: 'conversation_part.list',
        conversation_parts: [
          {
            id: '9',
            part_type: 'comment',
            body: 'Hi, I am a bot',
            created_at: 1_760_000_010,
            author: { type: 'bot', id: '1' },
          },
        ],
      },
    });
    expect(receive(body).effects.pushes).toEqual([
      { sourceId: body.id, contactId: 'c7', category: 'chat', conversationId: '77' },
    ]);
  });

  it('given several contacts, then one push each, told apart by a source id suffix', () => {
    const body = envelope('conversation.admin.replied', {
      type: 'conversation',
      id: '78',
      created_at: 1_760_000_000,
      contacts: { type: 'contact.list', contacts: [{ id: 'ca' }, { id: 'cb' }, { id: 'ca' }] },
    });
    const { effects } = receive(body);
    expect(effects.invalidation).toEqual({ contactIds: ['ca', 'cb'], conversationId: '78' });
    expect(effects.pushes.map((p) => [p.contactId, p.sourceId])).toEqual([
      ['ca', `${body.id}:ca`],
      ['cb', `${body.id}:cb`],
    ]);
  });

  it('given a close, then a duration from the conversation start to the close part, and no push', () => {
    const state = world();
    const { contact, conversation } = conversationOf(state);
    later(600);
    const close = changeState(state, conversation.id, state.operator.id, { to: 'closed' });
    later(5);
    const body = envelope('conversation.admin.closed', webhookItem(state, conversation.id, [close]));
    expect(receive(body).effects).toEqual({
      ...nothing,
      invalidation: { contactIds: [contact.id], conversationId: conversation.id },
      duration: {
        conversationId: conversation.id,
        openedAt: new Date(conversation.createdAt * 1000),
        closedAt: new Date(close.createdAt * 1000),
        notificationId: body.id,
      },
    });
    expect(close.createdAt - conversation.createdAt).toBe(600);
  });

  it('given a close whose item has no close part, then the notification time closes it', () => {
    const body = envelope(
      'conversation.admin.closed',
      { type: 'conversation', id: '80', created_at: 1_760_000_000, contacts: { contacts: [] } },
      1_760_000_900,
    );
    expect(receive(body).effects.duration).toEqual({
      conversationId: '80',
      openedAt: new Date(1_760_000_000_000),
      closedAt: new Date(1_760_000_900_000),
      notificationId: body.id,
    });
  });

  it('given a close stamped before the conversation began (clock skew), then a zero-length duration', () => {
    const body = envelope(
      'conversation.admin.closed',
      { type: 'conversation', id: '81', created_at: 1_760_000_000 },
      1_759_999_000,
    );
    const duration = receive(body).effects.duration;
    expect(duration?.closedAt).toEqual(duration?.openedAt);
  });

  it.each([
    'conversation.admin.noted',
    'conversation.admin.snoozed',
    'conversation.admin.opened',
    'conversation.user.created',
  ])('given %s, then the conversation is invalidated and nothing else', (topic) => {
    const state = world();
    const { contact, conversation } = conversationOf(state);
    const body = envelope(topic, webhookItem(state, conversation.id, []));
    expect(receive(body).effects).toEqual({
      ...nothing,
      invalidation: { contactIds: [contact.id], conversationId: conversation.id },
    });
  });

  it("given the user's own reply coming back (conversation.user.replied), then no push", () => {
    const state = world();
    const { contact, conversation } = conversationOf(state);
    const part = addUserReply(state, conversation.id, contact.id, USER_TEXT, []);
    const body = envelope('conversation.user.replied', webhookItem(state, conversation.id, [part]));
    expect(receive(body).effects.pushes).toEqual([]);
    expect(receive(body).effects.invalidation).toEqual({
      contactIds: [contact.id],
      conversationId: conversation.id,
    });
  });

  describe('tickets', () => {
    const setUp = () => {
      const state = world();
      const contact = createContact(state, { externalId: 'user-3' });
      const ticket = createTicket(state, {
        contactId: contact.id,
        title: 'Broken',
        adminId: state.operator.id,
      });
      return { state, contact, ticket };
    };

    it('given an operator answer on a ticket, then a ticket push', () => {
      const { state, contact, ticket } = setUp();
      replyToTicket(state, ticket.id, state.operator.id, OPERATOR_TEXT, []);
      const body = envelope('ticket.admin.replied', ticketItem(state, ticket.id));
      const { effects, record } = receive(body);
      expect(JSON.stringify(record)).not.toContain(OPERATOR_TEXT);
      expect(effects).toEqual({
        ...nothing,
        invalidation: { contactIds: [contact.id], ticketId: ticket.id },
        pushes: [{ sourceId: body.id, contactId: contact.id, category: 'ticket', ticketId: ticket.id }],
      });
    });

    it('given a state change short of resolved, then a ticket push', () => {
      const { state, contact, ticket } = setUp();
      changeTicketState(state, ticket.id, state.operator.id, 'waiting_on_customer');
      const body = envelope('ticket.state.updated', ticketItem(state, ticket.id));
      expect(receive(body).effects.pushes).toEqual([
        { sourceId: body.id, contactId: contact.id, category: 'ticket', ticketId: ticket.id },
      ]);
    });

    it('given a resolution, then the state change pushes nothing and ticket.resolved pushes with the CSAT prompt', () => {
      const { state, contact, ticket } = setUp();
      changeTicketState(state, ticket.id, state.operator.id, 'resolved');
      const updated = receive(envelope('ticket.state.updated', ticketItem(state, ticket.id)));
      expect(updated.effects).toEqual({
        ...nothing,
        invalidation: { contactIds: [contact.id], ticketId: ticket.id },
      });
      const body = envelope('ticket.resolved', ticketItem(state, ticket.id));
      expect(receive(body).effects.pushes).toEqual([
        { sourceId: body.id, contactId: contact.id, category: 'ticket', ticketId: ticket.id, csat: true },
      ]);
    });

    it('given ticket.created, then only an invalidation', () => {
      const { state, contact, ticket } = setUp();
      expect(receive(envelope('ticket.created', ticketItem(state, ticket.id))).effects).toEqual({
        ...nothing,
        invalidation: { contactIds: [contact.id], ticketId: ticket.id },
      });
    });
  });

  it('given contact.deleted, then the mapping is forgotten and the contact invalidated', () => {
    const body = envelope('contact.deleted', {
      type: 'contact',
      id: 'c-gone',
      external_id: 'user-9',
      deleted: true,
    });
    expect(receive(body).effects).toEqual({
      ...nothing,
      invalidation: { contactIds: ['c-gone'] },
      forgetContactId: 'c-gone',
    });
  });

  it('given ping, then nothing', () => {
    expect(receive(envelope('ping', { type: 'ping', message: 'something' })).effects).toEqual(nothing);
  });

  it('given a topic it does not know about a conversation, then only an invalidation', () => {
    const body = envelope('conversation.priority.updated', {
      type: 'conversation',
      id: '90',
      created_at: 1_760_000_000,
      contacts: { contacts: [{ id: 'c9' }] },
    });
    expect(receive(body).effects).toEqual({
      ...nothing,
      invalidation: { contactIds: ['c9'], conversationId: '90' },
    });
  });

  it('given a topic it does not know about something else, then nothing', () => {
    expect(
      receive(envelope('admin.away_mode_updated', { type: 'admin', id: '5', name: 'Op' })).effects,
    ).toEqual(nothing);
    expect(receive(envelope('contact.tag.created', { type: 'contact', id: 'c1' })).effects).toEqual(nothing);
  });
});
