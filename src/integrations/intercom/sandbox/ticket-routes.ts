import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { adminId } from './contact-routes.ts';
import { notifyTicket, type SandboxContext } from './context.ts';
import { parse } from './errors.ts';
import { renderTag, renderTicket, renderTicketPart } from './render.ts';
import { matches, paginate, searchRequest, type Fields } from './search.ts';
import type { Ticket } from './state.ts';
import { noteOnTicket, requireTicket, tagTicket } from './tickets.ts';

const ticketFields: Fields<Ticket> = {
  id: (ticket) => [ticket.id],
  contact_ids: (ticket) => [ticket.contactId],
  state: (ticket) => [ticket.category],
  open: (ticket) => [ticket.category !== 'resolved'],
  updated_at: (ticket) => [ticket.updatedAt],
};

export function ticketsRoutes(app: FastifyInstance, context: SandboxContext): void {
  const { state } = context;
  app.get('/tickets/:id', async (request) => {
    const { id } = parse(z.object({ id: z.string().min(1) }), request.params);
    return renderTicket(state, requireTicket(state, id));
  });

  app.post('/tickets/search', async (request) => {
    const search = parse(searchRequest, request.body);
    const found = [...state.tickets.values()].filter((ticket) => matches(ticket, search.query, ticketFields));
    const page = paginate(found, search);
    const tickets = page.items.map((ticket) => renderTicket(state, ticket));
    return { type: 'ticket.list', pages: page.pages, total_count: page.totalCount, tickets };
  });

  // An admin's internal note; Intercom answers the new part only. (Replies in the user's name are not
  // implemented: the service never sends one.)
  app.post('/tickets/:id/reply', async (request) => {
    const { id } = parse(z.object({ id: z.string().min(1) }), request.params);
    const body = parse(
      z.object({
        message_type: z.literal('note'),
        type: z.literal('admin'),
        admin_id: adminId,
        body: z.string().min(1),
      }),
      request.body,
    );
    const part = noteOnTicket(state, id, body.admin_id, body.body);
    void notifyTicket(context, 'ticket.note.created', requireTicket(state, id));
    return renderTicketPart(part);
  });

  app.post('/tickets/:id/tags', async (request) => {
    const { id } = parse(z.object({ id: z.string().min(1) }), request.params);
    const body = parse(z.object({ id: z.string().min(1), admin_id: adminId }), request.body);
    const { tag, applied } = tagTicket(state, id, body.id, body.admin_id);
    return renderTag(tag, applied);
  });
}
