import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ownedTicket } from '../../../chat/tickets.ts';
import { ticketStateSchema } from '../../../chat/ticket-views.ts';
import { invalidTransition } from '../../../lib/domain-error.ts';
import { blockText, lineText } from '../../../lib/text-rules.ts';
import type { ActionResult } from '../../../integrations/intercom/sandbox/operator.ts';
import { userOf } from '../../plugins/auth.ts';
import {
  operatorActionSchema,
  operatorActionView,
  operatorTicketSchema,
  operatorTicketView,
} from '../../views/api/devtools-operator.ts';
import { accepted, description, errors, params, sandboxRecord, security, tags } from './devtools-operator.ts';

/**
 * What a teammate does to the caller's tickets in Intercom's inbox, through the sandbox operator, so that
 * each change reaches the service as a signed webhook (devtools-operator.ts has the conversations').
 */
export const devtoolsOperatorTicketRoutes: FastifyPluginAsyncZod = async (app) => {
  const { chat } = app.services;
  const { sandbox } = app.services.support;
  if (!sandbox) return;
  const { operator, state: records } = sandbox;

  /** The caller's ticket as the sandbox holds it now (the cache may not have heard of a change yet). */
  const ownTicket = async (userId: string, id: string) => {
    await ownedTicket(chat, userId, id);
    return sandboxRecord(records.tickets.get(id), 'Ticket');
  };

  app.post(
    '/devtools/tickets',
    {
      schema: {
        operationId: 'devtoolsCreateTicket',
        tags,
        security,
        summary: 'A teammate opens a ticket for the caller (submitted)',
        description,
        body: z.strictObject({
          title: lineText({ max: 200 }),
          description: blockText({ max: 10_000 }).optional(),
        }),
        response: { 201: operatorTicketSchema, ...errors },
      },
    },
    async (request, reply) => {
      const contactId = await sandboxContact(userOf(request));
      const { title, description } = request.body;
      const result = await operator.createTicket({
        contactId,
        title,
        ...(description === undefined ? {} : { description }),
      });
      return reply.code(201).send(operatorTicketView(result));
    },
  );

  app.post(
    '/devtools/tickets/:id/state',
    {
      schema: {
        operationId: 'devtoolsSetTicketState',
        tags,
        security,
        summary: 'A teammate moves the ticket to a state; resolved pushes the CSAT prompt',
        description:
          `${description} \`resolved\` sends \`ticket.state.updated\` then \`ticket.resolved\`, ` +
          'whose push carries `csat`.',
        params,
        body: z.strictObject({ state: ticketStateSchema }),
        response: accepted(operatorActionSchema),
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const { state } = request.body;
      const ticket = await ownTicket(userOf(request), id);
      if (ticket.category === state) throw invalidTransition(`The ticket is ${state} already`);
      const result =
        state === 'resolved'
          ? await operator.resolveTicket(id)
          : await operator.setTicketState(id, { state });
      return reply.code(202).send(operatorActionView(result));
    },
  );

  /** A teammate writes on the caller's ticket: a reply the user sees, or a note they never do. */
  const writeOnTicket = (
    kind: 'reply' | 'note',
    doc: { readonly operationId: string; readonly summary: string; readonly description: string },
    write: (ticketId: string, body: string) => Promise<ActionResult>,
  ) =>
    app.post(
      `/devtools/tickets/:id/${kind}`,
      {
        schema: {
          ...doc,
          tags,
          security,
          params,
          body: z.strictObject({ text: blockText({ max: 10_000 }) }),
          response: accepted(operatorActionSchema),
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        await ownTicket(userOf(request), id);
        return reply.code(202).send(operatorActionView(await write(id, request.body.text)));
      },
    );

  writeOnTicket(
    'reply',
    {
      operationId: 'devtoolsReplyToTicket',
      summary: "A teammate replies on the caller's ticket; the reply pushes `ticket`",
      description: `${description} The reply comes as \`ticket.admin.replied\`.`,
    },
    (id, body) => operator.replyToTicket(id, { body }),
  );
  writeOnTicket(
    'note',
    {
      operationId: 'devtoolsNoteTicket',
      summary: 'A teammate leaves an internal note on the ticket (the user never sees it)',
      description:
        `${description} The note comes as \`ticket.note.created\`: it refreshes the cached ticket, ` +
        "moves Intercom's updated_at, and neither shows in the parts, pushes, nor raises the badge.",
    },
    (id, body) => operator.noteOnTicket(id, { body }),
  );

  /**
   * The caller's contact, made on first use. A mapping the sandbox does not know (it restarted with the
   * service, and `user_contacts` remembers its old contacts) is renewed, as opening a request renews it.
   */
  async function sandboxContact(userId: string): Promise<string> {
    const contactId = await chat.contacts.contactFor(userId);
    if (records.contacts.has(contactId)) return contactId;
    return chat.contacts.renew(userId, contactId);
  }
};
