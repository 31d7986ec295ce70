import { adminAuthor, applyTag, requireContact, requireTag, type TagOutcome } from './contacts.ts';
import { IntercomError } from './errors.ts';
import { textToHtml } from './html.ts';
import { defaultTicketLabel } from './render.ts';
import {
  seconds,
  type Attachment,
  type SandboxState,
  type Ticket,
  type TicketCategory,
  type TicketPart,
} from './state.ts';

export function requireTicket(state: SandboxState, id: string): Ticket {
  const ticket = state.tickets.get(id);
  if (!ticket) throw new IntercomError(404, 'ticket_not_found', 'Ticket not found');
  return ticket;
}

function append(state: SandboxState, ticket: Ticket, part: Omit<TicketPart, 'id' | 'createdAt'>): TicketPart {
  const now = seconds(state);
  const added: TicketPart = { ...part, id: state.nextId(), createdAt: now };
  ticket.parts.push(added);
  ticket.updatedAt = now;
  state.changed();
  return added;
}

export interface NewTicket {
  readonly contactId: string;
  readonly title: string;
  readonly description?: string | undefined;
  readonly adminId: string;
}

/** A customer ticket, submitted, with the state part Intercom starts a ticket's history with. */
export function createTicket(state: SandboxState, input: NewTicket): Ticket {
  const contact = requireContact(state, input.contactId);
  const author = adminAuthor(state, input.adminId);
  const now = seconds(state);
  const ticket: Ticket = {
    id: state.nextId(),
    ticketNumber: state.nextTicketNumber(),
    contactId: contact.id,
    title: input.title,
    description: input.description ?? null,
    category: 'submitted',
    externalLabel: defaultTicketLabel('submitted'),
    createdAt: now,
    updatedAt: now,
    parts: [],
    tags: [],
  };
  state.tickets.set(ticket.id, ticket);
  const part = { partType: 'ticket_state_updated_by_admin', body: null, author, attachments: [] };
  append(state, ticket, { ...part, ticketState: 'submitted', previousTicketState: 'submitted' });
  return ticket;
}

export function changeTicketState(
  state: SandboxState,
  ticketId: string,
  adminId: string,
  category: TicketCategory,
  externalLabel: string = defaultTicketLabel(category),
): TicketPart {
  const ticket = requireTicket(state, ticketId);
  const author = adminAuthor(state, adminId);
  const previous = ticket.category;
  ticket.category = category;
  ticket.externalLabel = externalLabel;
  const part = { partType: 'ticket_state_updated_by_admin', body: null, author, attachments: [] };
  return append(state, ticket, { ...part, ticketState: category, previousTicketState: previous });
}

export function replyToTicket(
  state: SandboxState,
  ticketId: string,
  adminId: string,
  body: string,
  attachments: readonly Attachment[],
): TicketPart {
  const ticket = requireTicket(state, ticketId);
  const author = adminAuthor(state, adminId);
  return append(state, ticket, { partType: 'comment', body: textToHtml(body), author, attachments });
}

/** A teammate's internal note (`POST /tickets/{id}/reply` as an admin): the user never sees it. */
export function noteOnTicket(
  state: SandboxState,
  ticketId: string,
  adminId: string,
  body: string,
): TicketPart {
  const ticket = requireTicket(state, ticketId);
  const author = adminAuthor(state, adminId);
  return append(state, ticket, { partType: 'note', body: textToHtml(body), author, attachments: [] });
}

/** Tagging twice keeps the first application, as for conversations. */
export function tagTicket(state: SandboxState, ticketId: string, tagId: string, adminId: string): TagOutcome {
  const ticket = requireTicket(state, ticketId);
  const tag = requireTag(state, tagId);
  adminAuthor(state, adminId);
  const before = ticket.tags.length;
  const applied = applyTag(state, ticket.tags, tagId, adminId);
  const added = ticket.tags.length > before;
  // As for conversations: `updated_at` moves, and the user sees nothing new.
  if (added) ticket.updatedAt = applied.appliedAt;
  return { tag, applied, added };
}
