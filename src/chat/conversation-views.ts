import { z } from 'zod';
import type {
  Attachment,
  Conversation,
  ConversationListItem,
  ConversationPart,
} from '../integrations/intercom/schemas.ts';
import { plainTextOf, safeBody } from './operator-html.ts';
import { richTextSchema } from './rich-text.ts';

// What a user may see of an Intercom conversation (API.md "Support chat"): their messages and the
// team's replies, never notes, assignments or other parts only teammates see.

export const authorSchema = z
  .object({ type: z.enum(['user', 'operator', 'bot']), name: z.string().optional() })
  .meta({ id: 'SupportAuthor' });
export type Author = z.infer<typeof authorSchema>;

export const attachmentSchema = z
  .object({ name: z.string(), url: z.string(), contentType: z.string(), size: z.number().int().optional() })
  .meta({ id: 'SupportAttachment' });

export const messageSchema = z
  .object({
    id: z.string(),
    author: authorSchema,
    /** Intercom's HTML, sanitised by the service to the allow-list of decision 023. */
    body: z.string(),
    /** The same as a typed tree: what SDKs render, with no HTML to parse. */
    content: richTextSchema,
    attachments: z.array(attachmentSchema),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'SupportMessage' });
export type Message = z.infer<typeof messageSchema>;

export const conversationStateSchema = z.enum(['open', 'closed', 'snoozed']);

export const conversationSchema = z
  .object({
    id: z.string(),
    state: conversationStateSchema,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    rated: z.boolean(),
    rating: z.number().int().min(1).max(5).optional(),
    messages: z.array(messageSchema),
  })
  .meta({ id: 'SupportConversation' });
export type ConversationView = z.infer<typeof conversationSchema>;

const lastMessageSchema = z.object({
  id: z.string(),
  author: authorSchema,
  /** Plain text of the body, on one line, cut to 140 characters. */
  preview: z.string(),
  createdAt: z.iso.datetime(),
});
export type LastMessage = z.infer<typeof lastMessageSchema>;

export const conversationSummarySchema = z
  .object({
    id: z.string(),
    state: conversationStateSchema,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    unreadCount: z.number().int().min(0),
    lastMessage: lastMessageSchema.optional(),
    rated: z.boolean(),
    rating: z.number().int().min(1).max(5).optional(),
  })
  .meta({ id: 'SupportConversationSummary' });
export type ConversationSummary = z.infer<typeof conversationSummarySchema>;

/**
 * Parts a user sees, by allow-list: a part type Intercom adds later stays hidden until someone decides it
 * is meant for users. Notes (`note`, `note_and_reopen`) are never on it.
 */
const USER_VISIBLE_PARTS = new Set([
  'comment',
  'open',
  'close',
  'assignment',
  'assign_and_reopen',
  'quick_reply',
]);

export const iso = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString();

export function authorOf(author: {
  readonly type: string;
  readonly name?: string | null | undefined;
}): Author {
  const type = ['user', 'lead', 'contact'].includes(author.type)
    ? 'user'
    : author.type === 'bot'
      ? 'bot'
      : 'operator';
  // The user's own name is theirs to know already; a teammate's or bot's is shown.
  return type !== 'user' && author.name ? { type, name: author.name } : { type };
}

export const attachmentsOf = (attachments: readonly Attachment[]): Message['attachments'] =>
  attachments.map((a) => ({
    name: a.name,
    url: a.url,
    contentType: a.content_type,
    ...(a.filesize === null || a.filesize === undefined ? {} : { size: a.filesize }),
  }));

function messageOfPart(part: ConversationPart): Message | null {
  if (!USER_VISIBLE_PARTS.has(part.part_type)) return null;
  // A state change without words (a bare close) is not a message.
  if ((part.body === null || part.body === '') && part.attachments.length === 0) return null;
  return {
    id: part.id,
    author: authorOf(part.author),
    ...safeBody(part.body ?? ''),
    attachments: attachmentsOf(part.attachments),
    createdAt: iso(part.created_at),
  };
}

/**
 * The conversation as its owner sees it; `rated` is false here, and the caller's CSAT rating is overlaid
 * per poll (`withRating`, decision 029). Every body, the user's own included, is sanitised here, once per
 * cache load (decision 023).
 */
export function conversationView(conversation: Conversation): ConversationView {
  const { source } = conversation;
  const first: Message = {
    id: source.id,
    author: authorOf(source.author),
    ...safeBody(source.body ?? ''),
    attachments: attachmentsOf(source.attachments),
    createdAt: iso(conversation.created_at),
  };
  const later = conversation.conversation_parts.conversation_parts
    .map(messageOfPart)
    .filter((m): m is Message => m !== null);
  return {
    id: conversation.id,
    state: conversation.state,
    createdAt: iso(conversation.created_at),
    updatedAt: iso(conversation.updated_at),
    rated: false,
    messages: [first, ...later],
  };
}

export interface ReadMarker {
  readonly lastReadMessageId: string | null;
  readonly lastReadAt: Date;
}

/**
 * Messages from the team the user has not read: those after the read marker and after the user's own
 * latest message (answering shows they saw what came before).
 */
export function unreadCount(messages: readonly Message[], marker: ReadMarker | undefined): number {
  let unread = 0;
  for (const message of messages) {
    const read =
      marker !== undefined &&
      (message.id === marker.lastReadMessageId ||
        Date.parse(message.createdAt) <= marker.lastReadAt.getTime());
    if (message.author.type === 'user' || read) unread = 0;
    else unread += 1;
  }
  return unread;
}

const PREVIEW_LENGTH = 140;

/** Plain text of a message's (sanitised) HTML, cut for a list row; an attachment's name when it has no text. */
export function previewOf(message: Pick<Message, 'body' | 'attachments'>): string {
  const text = plainTextOf(message.body);
  const shown = text === '' ? (message.attachments[0]?.name ?? '') : text;
  // By code points, so that a cut never splits a surrogate pair.
  const points = Array.from(shown);
  return points.length > PREVIEW_LENGTH ? `${points.slice(0, PREVIEW_LENGTH - 1).join('')}…` : shown;
}

/**
 * What a list row shows of the conversation's last message. Made when the cache loads the conversation,
 * with the view: a preview parses HTML, which a poll of the list must not do (decision 023).
 */
export function lastMessageOf(view: ConversationView): LastMessage | undefined {
  const last = view.messages.at(-1);
  if (last === undefined) return undefined;
  return { id: last.id, author: last.author, preview: previewOf(last), createdAt: last.createdAt };
}

/** A row of the one continuous thread. */
export function conversationSummary(
  item: Pick<ConversationListItem, 'id'>,
  view: ConversationView,
  lastMessage: LastMessage | undefined,
  marker: ReadMarker | undefined,
): ConversationSummary {
  return {
    id: item.id,
    state: view.state,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
    unreadCount: unreadCount(view.messages, marker),
    ...(lastMessage === undefined ? {} : { lastMessage }),
    rated: view.rated,
  };
}
