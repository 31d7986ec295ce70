import { htmlToText } from './html.ts';
import type {
  Admin,
  AppliedTag,
  Attachment,
  Author,
  Contact,
  Conversation,
  Note,
  Part,
  SandboxState,
  Tag,
  Ticket,
  TicketCategory,
  TicketPart,
} from './state.ts';

// The JSON Intercom answers with, field for field as in the 2.15 OpenAPI file's schemas and examples:
// the fields we hold no data for are there with the empty value Intercom gives them (null, [], {}).

/** Intercom answers GET /conversations/{id} with at most the 500 newest parts. */
const MAX_PARTS = 500;

/** Webhook items of API 2.15 carry plain-text bodies; the REST API answers with HTML. */
export interface RenderOptions {
  readonly plainText?: boolean;
}

export function renderAdmin(admin: Admin): Record<string, unknown> {
  return {
    type: 'admin',
    id: admin.id,
    name: admin.name,
    email: admin.email,
    away_mode_enabled: false,
    away_mode_reassign: false,
  };
}

export function renderMe(state: SandboxState): Record<string, unknown> {
  const { me } = state;
  return {
    type: 'admin',
    id: me.id,
    email: me.email,
    name: me.name,
    email_verified: true,
    app: {
      type: 'app',
      id_code: state.appIdCode,
      name: 'Intercom sandbox',
      created_at: 1_700_000_000,
      secure: false,
      identity_verification: false,
      timezone: 'UTC',
      region: 'US',
    },
    avatar: {
      type: 'avatar',
      image_url: 'https://static.intercomassets.com/assets/default-avatars/admins/128.png',
    },
    has_inbox_seat: true,
  };
}

const emptyList = (url: string) => ({ type: 'list', data: [], url, total_count: 0, has_more: false });

export function renderContact(contact: Contact): Record<string, unknown> {
  const url = `/contacts/${contact.id}`;
  return {
    type: 'contact',
    id: contact.id,
    workspace_id: '',
    external_id: contact.externalId,
    role: contact.role,
    // The schema has no null email: Intercom sends an empty string for a contact without one.
    email: contact.email ?? '',
    phone: null,
    name: contact.name,
    avatar: null,
    owner_id: null,
    social_profiles: { type: 'list', data: [] },
    has_hard_bounced: false,
    marked_email_as_spam: false,
    unsubscribed_from_emails: false,
    created_at: contact.createdAt,
    updated_at: contact.updatedAt,
    signed_up_at: null,
    last_seen_at: null,
    last_replied_at: null,
    last_contacted_at: null,
    last_email_opened_at: null,
    last_email_clicked_at: null,
    language_override: null,
    browser: null,
    browser_version: null,
    browser_language: null,
    os: null,
    location: {
      type: 'location',
      country: null,
      region: null,
      city: null,
      country_code: null,
      continent_code: null,
    },
    android_app_name: null,
    android_app_version: null,
    android_device: null,
    android_os_version: null,
    android_sdk_version: null,
    android_last_seen_at: null,
    ios_app_name: null,
    ios_app_version: null,
    ios_device: null,
    ios_os_version: null,
    ios_sdk_version: null,
    ios_last_seen_at: null,
    custom_attributes: { ...contact.customAttributes },
    tags: {
      type: 'list',
      data: contact.tags.map(({ tagId }) => ({ type: 'tag', id: tagId, url: `/tags/${tagId}` })),
      url: `${url}/tags`,
      total_count: contact.tags.length,
      has_more: false,
    },
    notes: {
      type: 'list',
      data: contact.noteIds.map((id) => ({ type: 'note', id, url: `/notes/${id}` })),
      url: `${url}/notes`,
      total_count: contact.noteIds.length,
      has_more: false,
    },
    companies: emptyList(`${url}/companies`),
    opted_out_subscription_types: emptyList(`${url}/subscriptions`),
    opted_in_subscription_types: emptyList(`${url}/subscriptions`),
    utm_campaign: null,
    utm_content: null,
    utm_medium: null,
    utm_source: null,
    utm_term: null,
    referrer: null,
    enabled_push_messaging: null,
  };
}

export function renderContactReference(contact: Contact): Record<string, unknown> {
  return { type: 'contact', id: contact.id, external_id: contact.externalId };
}

export function renderTag(tag: Tag, applied?: AppliedTag): Record<string, unknown> {
  if (!applied) return { type: 'tag', id: tag.id, name: tag.name };
  return {
    type: 'tag',
    id: tag.id,
    name: tag.name,
    applied_at: applied.appliedAt,
    applied_by: applied.appliedBy,
  };
}

export function renderNote(state: SandboxState, note: Note): Record<string, unknown> {
  const admin = state.admins.get(note.adminId) ?? state.me;
  return {
    type: 'note',
    id: note.id,
    created_at: note.createdAt,
    contact: { type: 'contact', id: note.contactId },
    author: renderAdmin(admin),
    body: note.body,
  };
}

function renderAuthor(author: Author): Record<string, unknown> {
  const { type, id, name, email } = author;
  return email === undefined ? { type, id, name } : { type, id, name, email };
}

function renderAttachment(attachment: Attachment): Record<string, unknown> {
  const { name, url, contentType, filesize, width, height } = attachment;
  const size = width === undefined || height === undefined ? {} : { width, height };
  return { type: 'upload', name, url, content_type: contentType, filesize, ...size };
}

function body(html: string | null, options: RenderOptions): string | null {
  return html !== null && options.plainText ? htmlToText(html) : html;
}

function renderPart(part: Part, options: RenderOptions): Record<string, unknown> {
  return {
    type: 'conversation_part',
    id: part.id,
    part_type: part.partType,
    body: body(part.body, options),
    created_at: part.createdAt,
    updated_at: part.createdAt,
    notified_at: part.createdAt,
    assigned_to: null,
    author: renderAuthor(part.author),
    attachments: part.attachments.map(renderAttachment),
    external_id: null,
    redacted: false,
    email_message_metadata: null,
    state: part.state,
    tags: [],
    event_details: null,
    app_package_code: null,
  };
}

/** A conversation as in `conversation.list` (search): everything but the parts. */
export function renderConversationListItem(
  state: SandboxState,
  conversation: Conversation,
  options: RenderOptions = {},
): Record<string, unknown> {
  const contact = state.contacts.get(conversation.contactId);
  const { source } = conversation;
  return {
    type: 'conversation',
    id: conversation.id,
    created_at: conversation.createdAt,
    updated_at: conversation.updatedAt,
    waiting_since: conversation.waitingSince,
    snoozed_until: conversation.snoozedUntil,
    source: {
      type: 'conversation',
      id: source.id,
      delivered_as: 'customer_initiated',
      subject: '',
      body: body(source.body, options),
      author: renderAuthor(source.author),
      attachments: source.attachments.map(renderAttachment),
      url: null,
      redacted: false,
    },
    contacts: { type: 'contact.list', contacts: contact ? [renderContactReference(contact)] : [] },
    first_contact_reply: { created_at: conversation.createdAt, type: 'conversation', url: null },
    admin_assignee_id: conversation.adminAssigneeId,
    team_assignee_id: null,
    // A snoozed conversation is not closed: `open` stays true, `state` tells it apart.
    open: conversation.state !== 'closed',
    state: conversation.state,
    read: conversation.read,
    tags: { type: 'tag.list', tags: appliedTags(state, conversation.tags) },
    priority: 'not_priority',
    sla_applied: null,
    statistics: null,
    conversation_rating: null,
    teammates: null,
    title: null,
    custom_attributes: {},
    linked_objects: { type: 'list', data: [], total_count: 0, has_more: false },
    ai_agent: null,
    ai_agent_participated: false,
  };
}

/** A whole conversation; `parts` narrows the part list (a reply answers with the new part only). */
export function renderConversation(
  state: SandboxState,
  conversation: Conversation,
  parts: readonly Part[] = conversation.parts.slice(-MAX_PARTS),
  options: RenderOptions = {},
): Record<string, unknown> {
  return {
    ...renderConversationListItem(state, conversation, options),
    conversation_parts: {
      type: 'conversation_part.list',
      conversation_parts: parts.map((part) => renderPart(part, options)),
      total_count: parts.length,
    },
  };
}

function appliedTags(state: SandboxState, applied: readonly AppliedTag[]): Record<string, unknown>[] {
  return applied.flatMap((tag) => {
    const known = state.tags.get(tag.tagId);
    return known ? [renderTag(known, tag)] : [];
  });
}

const TICKET_STATES: Record<TicketCategory, { readonly id: string; readonly label: string }> = {
  submitted: { id: '8001', label: 'Submitted' },
  in_progress: { id: '8002', label: 'In progress' },
  waiting_on_customer: { id: '8003', label: 'Waiting on you' },
  resolved: { id: '8004', label: 'Resolved' },
};

export const defaultTicketLabel = (category: TicketCategory): string => TICKET_STATES[category].label;

export function renderTicketPart(part: TicketPart, options: RenderOptions = {}): Record<string, unknown> {
  const states =
    part.ticketState === undefined
      ? {}
      : {
          ticket_state: part.ticketState,
          previous_ticket_state: part.previousTicketState ?? part.ticketState,
        };
  return {
    type: 'ticket_part',
    id: part.id,
    part_type: part.partType,
    body: body(part.body, options),
    ...states,
    created_at: part.createdAt,
    updated_at: part.createdAt,
    author: renderAuthor(part.author),
    attachments: part.attachments.map(renderAttachment),
    redacted: false,
    app_package_code: 'sandbox',
  };
}

export function renderTicket(
  state: SandboxState,
  ticket: Ticket,
  options: RenderOptions = {},
): Record<string, unknown> {
  const contact = state.contacts.get(ticket.contactId);
  const ticketState = TICKET_STATES[ticket.category];
  return {
    type: 'ticket',
    id: ticket.id,
    ticket_id: ticket.ticketNumber,
    ticket_attributes: { _default_title_: ticket.title, _default_description_: ticket.description },
    ticket_state: {
      type: 'ticket_state',
      id: ticketState.id,
      category: ticket.category,
      internal_label: ticketState.label,
      external_label: ticket.externalLabel,
    },
    ticket_type: {
      type: 'ticket_type',
      id: '100',
      name: 'Support request',
      description: 'A request handled by the support team.',
      icon: '🎫',
      workspace_id: state.appIdCode,
      archived: false,
      created_at: 1_700_000_000,
      updated_at: 1_700_000_000,
      is_internal: false,
      ticket_type_attributes: { type: 'list', data: [] },
      category: 'Customer',
    },
    contacts: { type: 'contact.list', contacts: contact ? [renderContactReference(contact)] : [] },
    admin_assignee_id: '0',
    team_assignee_id: '0',
    created_at: ticket.createdAt,
    updated_at: ticket.updatedAt,
    ticket_parts: {
      type: 'ticket_part.list',
      ticket_parts: ticket.parts.map((part) => renderTicketPart(part, options)),
      total_count: ticket.parts.length,
    },
    open: ticket.category !== 'resolved',
    linked_objects: { type: 'list', data: [], total_count: 0, has_more: false },
    category: 'Customer',
    is_shared: true,
  };
}
