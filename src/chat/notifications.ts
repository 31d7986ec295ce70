import { z } from 'zod';
import type { PushRequest } from '../push/dispatcher.ts';
import type { SupportChange } from './invalidation.ts';

// Intercom's webhooks (INTEGRATIONS.md): a `notification_event` envelope around the conversation, ticket or
// contact the event is about. The item carries message bodies (plain text in API 2.15); none of them is ever
// kept: the envelope is reduced at once to a minimal record of ids, topic, times and states (spec rule 1),
// which is what the inbox stores and what every effect below is computed from.

/** Intercom sends ids as strings; a number is tolerated, so a payload quirk is not a lost event. */
const id = z.union([z.string().min(1).max(200), z.number().int().nonnegative()]).transform(String);
/** Intercom's times are unix seconds. */
const unixSeconds = z.number().int().nonnegative();

const contactList = z.object({ contacts: z.array(z.object({ id })).max(100) });

const part = z.object({
  id,
  part_type: z.string().max(100),
  created_at: unixSeconds,
  author: z.object({ type: z.string().max(50) }).nullish(),
});

/** Known item kinds are checked; z.object drops every other field, bodies included, as it parses. */
const conversationItem = z.object({
  type: z.literal('conversation'),
  id,
  created_at: unixSeconds,
  contacts: contactList.nullish(),
  conversation_parts: z.object({ conversation_parts: z.array(part) }).nullish(),
});

const ticketItem = z.object({
  type: z.literal('ticket'),
  id,
  created_at: unixSeconds.nullish(),
  // An object in 2.15; a bare category string in older payload versions.
  ticket_state: z
    .union([
      z.object({ category: z.string().max(50) }),
      z
        .string()
        .max(50)
        .transform((category) => ({ category })),
    ])
    .nullish(),
  contacts: contactList.nullish(),
  ticket_parts: z.object({ ticket_parts: z.array(part) }).nullish(),
});

/** `contact.*` topics; `*.deleted` topics carry only identifying fields. */
const contactItem = z.object({ type: z.literal('contact'), id });

const knownItemTypes: readonly string[] = ['conversation', 'ticket', 'contact'];
/** Any other item (a `ping`, an admin, a company): only its kind is looked at. */
const otherItem = z.object({
  type: z
    .string()
    .max(100)
    .refine((type) => !knownItemTypes.includes(type), 'is a known item type of the wrong shape'),
});

const item = z.union([conversationItem, ticketItem, contactItem, otherItem]);

export const notificationEventSchema = z.object({
  type: z.literal('notification_event'),
  id: z.string().min(1).max(200),
  topic: z.string().min(1).max(200),
  app_id: z.string().max(200),
  created_at: unixSeconds,
  data: z.object({ item }),
});
export type NotificationEvent = z.infer<typeof notificationEventSchema>;

/** Conversation parts kept per record: the newest, so a huge item cannot make a huge row. */
const MAX_PARTS = 50;

const recordPart = z.object({
  id: z.string(),
  partType: z.string(),
  authorType: z.string().nullable(),
  createdAt: unixSeconds,
});

/** What the inbox keeps of a notification: no body, no name, no free text. */
export const notificationRecordSchema = z.object({
  notificationId: z.string(),
  topic: z.string(),
  /** When Intercom created the notification (unix seconds). */
  createdAt: unixSeconds,
  conversation: z.object({ id: z.string(), createdAt: unixSeconds }).nullable(),
  ticket: z.object({ id: z.string(), stateCategory: z.string().nullable() }).nullable(),
  /** The contact a `contact.*` topic is about. */
  contactId: z.string().nullable(),
  /** The contacts of the conversation or ticket. */
  contactIds: z.array(z.string()),
  parts: z.array(recordPart),
});
export type NotificationRecord = z.infer<typeof notificationRecordSchema>;

const parts = (list: readonly z.infer<typeof part>[] | undefined): NotificationRecord['parts'] =>
  (list ?? []).slice(-MAX_PARTS).map((p) => ({
    id: p.id,
    partType: p.part_type,
    authorType: p.author?.type ?? null,
    createdAt: p.created_at,
  }));

const contactIdsOf = (list: z.infer<typeof contactList> | null | undefined): string[] => [
  ...new Set((list?.contacts ?? []).map((contact) => contact.id)),
];

/** The minimal record of a parsed notification (pure). */
export function toNotificationRecord(event: NotificationEvent): NotificationRecord {
  const base = {
    notificationId: event.id,
    topic: event.topic,
    createdAt: event.created_at,
    conversation: null,
    ticket: null,
    contactId: null,
    contactIds: [],
    parts: [],
  };
  const subject = event.data.item;
  if ('id' in subject) {
    switch (subject.type) {
      case 'conversation':
        return {
          ...base,
          conversation: { id: subject.id, createdAt: subject.created_at },
          contactIds: contactIdsOf(subject.contacts),
          parts: parts(subject.conversation_parts?.conversation_parts),
        };
      case 'ticket':
        return {
          ...base,
          ticket: { id: subject.id, stateCategory: subject.ticket_state?.category ?? null },
          contactIds: contactIdsOf(subject.contacts),
          parts: parts(subject.ticket_parts?.ticket_parts),
        };
      case 'contact':
        return { ...base, contactId: subject.id };
    }
  }
  return base;
}

/** A push for whichever user a contact belongs to: the inbox resolves the user. */
export type PushIntent = Omit<PushRequest, 'userId'> & { readonly contactId: string };

export interface ConversationDuration {
  readonly conversationId: string;
  readonly openedAt: Date;
  readonly closedAt: Date;
  readonly notificationId: string;
}

/** What processing a notification does; computed without I/O. */
export interface NotificationEffects {
  /** Cached provider reads made stale; null when the notification names nothing we cache. */
  readonly invalidation: SupportChange | null;
  readonly duration: ConversationDuration | null;
  readonly pushes: readonly PushIntent[];
  /** A contact Intercom deleted: its user→contact mapping is forgotten. */
  readonly forgetContactId: string | null;
}

const none: NotificationEffects = { invalidation: null, duration: null, pushes: [], forgetContactId: null };

const CHAT_REPLY_TOPICS: readonly string[] = ['conversation.admin.replied', 'conversation.operator.replied'];

type PushTarget = Pick<PushRequest, 'category' | 'conversationId' | 'ticketId' | 'csat'>;

/** One push per contact; the source id is the notification's, suffixed per contact when there are several. */
function pushesTo(record: NotificationRecord, target: PushTarget): PushIntent[] {
  const several = record.contactIds.length > 1;
  return record.contactIds.map((contactId) => ({
    ...target,
    contactId,
    sourceId: several ? `${record.notificationId}:${contactId}` : record.notificationId,
  }));
}

const date = (unix: number): Date => new Date(unix * 1000);

/**
 * A close at `closedAt` of a conversation created at `createdAt` (unix seconds). A clock that puts it before
 * the conversation's start counts as a zero-length conversation rather than a row that cannot exist. The
 * webhook and a user's own close (`src/chat/conversation-close.ts`) both measure a close this way, from the
 * close part's time, so they meet the same (conversation, closed_at) key and the close is recorded once.
 */
export function closeDuration(
  conversation: { readonly id: string; readonly createdAt: number },
  closedAt: number,
  notificationId: string,
): ConversationDuration {
  return {
    conversationId: conversation.id,
    openedAt: date(conversation.createdAt),
    closedAt: date(Math.max(closedAt, conversation.createdAt)),
    notificationId,
  };
}

/** The close's time is its part's (the newest `close` part), else the notification's. */
function durationOf(record: NotificationRecord, conversation: { id: string; createdAt: number }) {
  const close = record.parts.filter((p) => p.partType === 'close').at(-1);
  return closeDuration(conversation, close?.createdAt ?? record.createdAt, record.notificationId);
}

/**
 * What a notification does (pure). Anything naming a conversation or ticket invalidates its cached reads;
 * a close records a duration; an operator's or bot's reply pushes `chat`; a ticket reply or state change
 * pushes `ticket`, its resolution `ticket` with the CSAT prompt (and the `ticket.state.updated` to resolved
 * that comes with it pushes nothing, so the user gets one push). A deleted contact's mapping is forgotten.
 * Topics not named here (including our own writes, `conversation.user.*`) only invalidate; `ping` does nothing.
 */
export function effectsOf(record: NotificationRecord): NotificationEffects {
  const { topic, conversation, ticket } = record;
  if (topic === 'ping') return none;
  if (topic === 'contact.deleted') {
    if (record.contactId === null) return none;
    return { ...none, invalidation: { contactIds: [record.contactId] }, forgetContactId: record.contactId };
  }
  if (conversation) {
    const invalidation = { contactIds: record.contactIds, conversationId: conversation.id };
    if (CHAT_REPLY_TOPICS.includes(topic)) {
      return {
        ...none,
        invalidation,
        pushes: pushesTo(record, { category: 'chat', conversationId: conversation.id }),
      };
    }
    if (topic === 'conversation.admin.closed') {
      return { ...none, invalidation, duration: durationOf(record, conversation) };
    }
    return { ...none, invalidation };
  }
  if (ticket) {
    const invalidation = { contactIds: record.contactIds, ticketId: ticket.id };
    const pushTicket = (csat: boolean) =>
      pushesTo(record, { category: 'ticket', ticketId: ticket.id, ...(csat ? { csat } : {}) });
    switch (topic) {
      case 'ticket.admin.replied':
        return { ...none, invalidation, pushes: pushTicket(false) };
      case 'ticket.state.updated':
        return {
          ...none,
          invalidation,
          pushes: ticket.stateCategory === 'resolved' ? [] : pushTicket(false),
        };
      case 'ticket.resolved':
        return { ...none, invalidation, pushes: pushTicket(true) };
      default:
        return { ...none, invalidation };
    }
  }
  return none;
}
