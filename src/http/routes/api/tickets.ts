import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ratedTicketFor, ratedTicketsOf } from '../../../chat/tickets.ts';
import { ticketSchema, ticketSummarySchema } from '../../../chat/ticket-views.ts';
import { createCsatRatings } from '../../../queries/csat.ts';
import { userOf } from '../../plugins/auth.ts';
import { replyToProviderPoll, replyToProviderRecord } from '../../poll-freshness.ts';
import { notModified, pollHeaders, sessionSecurity } from './conventions.ts';
import { providerId, supportErrors, supportTags } from './support-schemas.ts';

const tags = supportTags;
const security = sessionSecurity;
const errors = supportErrors;

export const ticketsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { chat, config } = app.services;
  const pollMs = config.POLL_CHAT_MS;
  // The `rated` overlay (decision 029): each user's ratings, read again only after they rate.
  const ratings = createCsatRatings(app.services.pool, app.services.changes, 'ticket');
  app.get(
    '/tickets',
    {
      schema: {
        operationId: 'listTickets',
        tags,
        security,
        summary: "Poll: the user's tickets, oldest first",
        headers: pollHeaders,
        response: {
          200: z.object({ items: z.array(ticketSummarySchema) }).meta({ id: 'SupportTickets' }),
          304: notModified,
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { items, freshness } = await ratedTicketsOf(chat, ratings, userOf(request));
      return replyToProviderPoll(request, reply, { body: { items }, freshness }, pollMs);
    },
  );

  app.get(
    '/tickets/:id',
    {
      schema: {
        operationId: 'getTicket',
        tags,
        security,
        summary: 'Poll: one ticket with the parts its owner may see (looking at it marks it read)',
        params: z.object({ id: providerId }),
        headers: pollHeaders,
        response: { 200: ticketSchema, 304: notModified, ...errors },
      },
    },
    async (request, reply) =>
      replyToProviderRecord(
        request,
        reply,
        await ratedTicketFor(chat, ratings, userOf(request), request.params.id),
        pollMs,
      ),
  );
};
