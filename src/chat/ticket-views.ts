import { z } from 'zod';
import type { Ticket } from '../integrations/intercom/schemas.ts';
import { attachmentSchema, attachmentsOf, authorOf, authorSchema, iso } from './conversation-views.ts';
import { safeBody } from './operator-html.ts';
import { richTextSchema } from './rich-text.ts';

// What a user may see of their Intercom tickets (API.md "Support chat"): the state under its external
// label, the team's and their own replies, and the state changes; never notes or internal attributes.

export const ticketStateSchema = z.enum(['submitted', 'in_progress', 'waiting_on_customer', 'resolved']);

export const ticketSummarySchema = z
  .object({
    id: z.string(),
    title: z.string(),
    state: ticketStateSchema,
    /** Intercom's `external_label`: the words the team chose for users. */
    stateLabel: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    rated: z.boolean(),
    rating: z.number().int().min(1).max(5).optional(),
  })
  .meta({ id: 'SupportTicketSummary' });
export type TicketSummary = z.infer<typeof ticketSummarySchema>;

export const ticketSchema = ticketSummarySchema
  .extend({
    parts: z.array(
      z.object({
        id: z.string(),
        author: authorSchema,
        /** Intercom's HTML, sanitised (decision 023); null for a state change without words. */
        body: z.string().nullable(),
        /** The same as a typed tree; null exactly when `body` is. */
        content: richTextSchema.nullable(),
        attachments: z.array(attachmentSchema),
        createdAt: z.iso.datetime(),
        /** The state the ticket moved to, on state changes. */
        state: ticketStateSchema.optional(),
      }),
    ),
  })
  .meta({ id: 'SupportTicket' });
export type TicketView = z.infer<typeof ticketSchema>;

/** Comments and state changes; notes and anything else are for teammates. */
const USER_VISIBLE_PARTS = new Set([
  'comment',
  'ticket_state_updated_by_admin',
  'ticket_state_updated_by_user',
]);

function titleOf(ticket: Ticket): string {
  const title = ticket.ticket_attributes?.['_default_title_'];
  return typeof title === 'string' && title !== '' ? title : `Ticket ${ticket.ticket_id ?? ticket.id}`;
}

/** `rated` is false here: the caller's CSAT rating is overlaid per poll (`ratedTicketsOf`, decision 029). */
export function ticketSummary(ticket: Ticket): TicketSummary {
  return {
    id: ticket.id,
    title: titleOf(ticket),
    state: ticket.ticket_state.category,
    stateLabel: ticket.ticket_state.external_label,
    createdAt: iso(ticket.created_at),
    updatedAt: iso(ticket.updated_at),
    rated: false,
  };
}

/** Bodies are sanitised here, once per cache load (decision 023). */
export function ticketView(ticket: Ticket): TicketView {
  const parts = (ticket.ticket_parts?.ticket_parts ?? [])
    .filter((part) => USER_VISIBLE_PARTS.has(part.part_type))
    .filter((part) => part.part_type !== 'comment' || (part.body ?? '') !== '' || part.attachments.length > 0)
    .map((part) => ({
      id: part.id,
      author: authorOf(part.author ?? { type: 'admin' }),
      ...(part.body === null || part.body === undefined
        ? { body: null, content: null }
        : safeBody(part.body)),
      attachments: attachmentsOf(part.attachments),
      createdAt: iso(part.created_at),
      ...(part.ticket_state === undefined ? {} : { state: part.ticket_state }),
    }));
  return { ...ticketSummary(ticket), parts };
}

/**
 * When the team last did something the user sees in the ticket (a reply or a state change), in ms; null
 * when it never did. Notes, tags and attribute changes move Intercom's `updated_at`, never this (issue 33).
 */
export function lastTeamPartAt(view: TicketView): number | null {
  let last: number | null = null;
  for (const part of view.parts) {
    if (part.author.type === 'user') continue;
    const at = Date.parse(part.createdAt);
    if (last === null || at > last) last = at;
  }
  return last;
}
