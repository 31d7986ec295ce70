import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SandboxContext } from './context.ts';
import { parse } from './errors.ts';
import { renderTicket } from './render.ts';
import { matches, paginate, searchRequest, type Fields } from './search.ts';
import type { Ticket } from './state.ts';
import { requireTicket } from './tickets.ts';

const ticketFields: Fields<Ticket> = {
  id: (ticket) => [ticket.id],
  contact_ids: (ticket) => [ticket.contactId],
  state: (ticket) => [ticket.category],
  open: (ticket) => [ticket.category !== 'resolved'],
  updated_at: (ticket) => [ticket.updatedAt],
};

export function ticketsRoutes(app: FastifyInstance, { state }: SandboxContext): void {
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
}
