import { extname } from 'node:path';
import { adminAuthor, applyTag, requireContact, requireTag, type TagOutcome } from './contacts.ts';
import { notFound } from './errors.ts';
import { textToHtml } from './html.ts';
import {
  seconds,
  type Attachment,
  type Author,
  type Contact,
  type Conversation,
  type ConversationState,
  type Part,
  type SandboxState,
} from './state.ts';

export function requireConversation(state: SandboxState, id: string): Conversation {
  const conversation = state.conversations.get(id);
  if (!conversation) throw notFound('Conversation not found');
  return conversation;
}

const userAuthor = (contact: Contact): Author => ({
  type: 'user',
  id: contact.id,
  name: contact.name,
  ...(contact.email ? { email: contact.email } : {}),
});

const CONTENT_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.mp4': 'video/mp4',
  '.txt': 'text/plain',
};

/**
 * Intercom downloads each `attachment_urls` entry and serves its own copy. The sandbox fetches nothing:
 * it keeps the URL, names the file after its last path segment and guesses the type from the extension.
 */
export function attachmentsFromUrls(urls: readonly string[]): Attachment[] {
  return urls.map((url) => {
    const name = decodeURIComponent(new URL(url).pathname.split('/').at(-1) ?? '') || 'attachment';
    const contentType = CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
    return { name, url, contentType, filesize: 0 };
  });
}

export interface Created {
  readonly conversation: Conversation;
  readonly messageId: string;
}

export function createConversation(
  state: SandboxState,
  contactId: string,
  body: string,
  attachmentUrls: readonly string[],
): Created {
  const contact = requireContact(state, contactId);
  const now = seconds(state);
  const messageId = state.nextId();
  const conversation: Conversation = {
    id: state.nextId(),
    contactId: contact.id,
    createdAt: now,
    updatedAt: now,
    state: 'open',
    snoozedUntil: null,
    waitingSince: now,
    read: false,
    adminAssigneeId: null,
    tags: [],
    source: {
      id: messageId,
      body: textToHtml(body),
      createdAt: now,
      author: userAuthor(contact),
      attachments: attachmentsFromUrls(attachmentUrls),
    },
    parts: [],
  };
  state.conversations.set(conversation.id, conversation);
  state.changed();
  return { conversation, messageId };
}

function append(
  state: SandboxState,
  conversation: Conversation,
  part: Omit<Part, 'id' | 'createdAt' | 'state'>,
  next: ConversationState = conversation.state,
): Part {
  const now = seconds(state);
  conversation.state = next;
  if (next !== 'snoozed') conversation.snoozedUntil = null;
  conversation.updatedAt = now;
  const added: Part = { ...part, id: state.nextId(), createdAt: now, state: next };
  conversation.parts.push(added);
  state.changed();
  return added;
}

/** A user's comment; it reopens a closed or snoozed conversation, as in Intercom. */
export function addUserReply(
  state: SandboxState,
  conversationId: string,
  contactId: string,
  body: string,
  attachmentUrls: readonly string[],
): Part {
  const conversation = requireConversation(state, conversationId);
  const contact = requireContact(state, contactId);
  conversation.waitingSince ??= seconds(state);
  conversation.read = false;
  const part = { partType: 'comment', body: textToHtml(body), author: userAuthor(contact) };
  return append(state, conversation, { ...part, attachments: attachmentsFromUrls(attachmentUrls) }, 'open');
}

export interface AdminPart {
  readonly partType: 'comment' | 'note';
  readonly adminId: string;
  readonly body: string;
  readonly attachments: readonly Attachment[];
}

/** A teammate's reply (seen by the user) or note (internal: clients must not show it). */
export function addAdminPart(state: SandboxState, conversationId: string, input: AdminPart): Part {
  const conversation = requireConversation(state, conversationId);
  const author = adminAuthor(state, input.adminId);
  if (input.partType === 'comment') conversation.waitingSince = null;
  const { partType, attachments } = input;
  return append(state, conversation, { partType, body: textToHtml(input.body), author, attachments });
}

/**
 * A teammate assigns the conversation to themselves: an `assignment` part with no body, which the user
 * never sees (Intercom allows a message with it; the sandbox does not).
 */
export function assignConversation(state: SandboxState, conversationId: string, adminId: string): Part {
  const conversation = requireConversation(state, conversationId);
  const author = adminAuthor(state, adminId);
  conversation.adminAssigneeId = Number(adminId);
  return append(state, conversation, { partType: 'assignment', body: null, author, attachments: [] });
}

export type StateChange =
  | { readonly to: 'closed'; readonly body?: string | undefined }
  | { readonly to: 'open' }
  | { readonly to: 'snoozed'; readonly until: number };

/**
 * The webhook topic of a teammate's state change, from the state before it: opening a snoozed conversation
 * unsnoozes it.
 */
export function stateChangeTopic(before: ConversationState, to: StateChange['to']): string {
  if (to === 'closed') return 'conversation.admin.closed';
  if (to === 'snoozed') return 'conversation.admin.snoozed';
  return before === 'snoozed' ? 'conversation.admin.unsnoozed' : 'conversation.admin.opened';
}

/** Close, open or snooze: each leaves a part with no body, whose type names the change. */
export function changeState(
  state: SandboxState,
  conversationId: string,
  adminId: string,
  change: StateChange,
): Part {
  const conversation = requireConversation(state, conversationId);
  const author = adminAuthor(state, adminId);
  const partType = {
    closed: 'close',
    snoozed: 'snoozed',
    open: conversation.state === 'snoozed' ? 'unsnoozed' : 'open',
  }[change.to];
  const body = change.to === 'closed' && change.body ? textToHtml(change.body) : null;
  const part = append(state, conversation, { partType, body, author, attachments: [] }, change.to);
  if (change.to === 'snoozed') conversation.snoozedUntil = change.until;
  state.changed();
  return part;
}

export function markRead(state: SandboxState, conversationId: string, read: boolean): Conversation {
  const conversation = requireConversation(state, conversationId);
  conversation.read = read;
  state.changed();
  return conversation;
}

export function tagConversation(
  state: SandboxState,
  conversationId: string,
  tagId: string,
  adminId: string,
): TagOutcome {
  const conversation = requireConversation(state, conversationId);
  const tag = requireTag(state, tagId);
  adminAuthor(state, adminId);
  const before = conversation.tags.length;
  const applied = applyTag(state, conversation.tags, tagId, adminId);
  const added = conversation.tags.length > before;
  // A new tag changes the record: its `updated_at` moves, though the user sees nothing new.
  if (added) conversation.updatedAt = applied.appliedAt;
  return { tag, applied, added };
}
