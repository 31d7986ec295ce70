import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { conversationFor } from '../../../chat/conversations.ts';
import { contactOfUser } from '../../../chat/user-contacts.ts';
import { invalidTransition, notFound } from '../../../lib/domain-error.ts';
import { blockText } from '../../../lib/text-rules.ts';
import { userOf } from '../../plugins/auth.ts';
import { problemSchema } from '../../problem.ts';
import { operatorActionSchema, operatorActionView } from '../../views/api/devtools-operator.ts';
import { sessionSecurity } from './conventions.ts';
import { providerId, supportErrors } from './support-schemas.ts';

export const tags = ['devtools'];
export const security = sessionSecurity;
export const params = z.object({ id: providerId });
/** The support routes' refusals, and 409 for an action that changes nothing (closing a closed one). */
export const errors = { ...supportErrors, 409: problemSchema };
export const accepted = <S extends z.ZodType>(schema: S) => ({ 202: schema, ...errors });
export const description =
  "Sandbox only, on the caller's own records (403 otherwise). The sandbox operator acts, and the change " +
  'reaches the service as a signed webhook, as in production: it shows on the next poll once processed.';

/** A snooze ends later than now, and within a year. */
const snoozeUntil = z.iso
  .datetime({ offset: true })
  .refine((value) => Date.parse(value) > Date.now(), 'must be in the future')
  .refine((value) => Date.parse(value) < Date.now() + 366 * 86_400_000, 'must be within a year');

/**
 * What a teammate does in Intercom's inbox, to the caller's own conversations and contact (the tickets' are
 * in devtools-operator-tickets.ts), done through the sandbox operator, so that each change reaches the service as Intercom's signed webhook would (API.md
 * devtools). Ownership is checked as every support route checks it, through the read cache: 404 unknown,
 * 403 someone else's, and nothing is sent then. Registered by devtools.ts when the sandbox stands in for
 * Intercom (ENABLE_DEVTOOLS=1, never in production).
 */
export const devtoolsOperatorRoutes: FastifyPluginAsyncZod = async (app) => {
  const { chat, support, pool } = app.services;
  const { sandbox } = support;
  if (!sandbox) return;
  const { operator, state: records } = sandbox;

  /** The caller's conversation as the sandbox holds it now (the cache may not have heard of a change yet). */
  const ownConversation = async (userId: string, id: string) => {
    await conversationFor(chat, userId, id);
    return sandboxRecord(records.conversations.get(id), 'Conversation');
  };

  app.post(
    '/devtools/conversations/:id/close',
    {
      schema: {
        operationId: 'devtoolsCloseConversation',
        tags,
        security,
        summary: 'A teammate closes the conversation, with an optional last message',
        description,
        params,
        body: z.strictObject({ text: blockText({ max: 10_000 }).optional() }).optional(),
        response: accepted(operatorActionSchema),
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const conversation = await ownConversation(userOf(request), id);
      if (conversation.state === 'closed') throw invalidTransition('The conversation is closed already');
      const text = request.body?.text;
      const result = await operator.close(id, text === undefined ? {} : { body: text });
      return reply.code(202).send(operatorActionView(result));
    },
  );

  app.post(
    '/devtools/conversations/:id/snooze',
    {
      schema: {
        operationId: 'devtoolsSnoozeConversation',
        tags,
        security,
        summary: 'A teammate snoozes the conversation until a time',
        description,
        params,
        body: z.strictObject({ until: snoozeUntil }),
        response: accepted(operatorActionSchema),
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await ownConversation(userOf(request), id);
      const until = Math.ceil(Date.parse(request.body.until) / 1000);
      return reply.code(202).send(operatorActionView(await operator.snooze(id, { until })));
    },
  );

  app.post(
    '/devtools/conversations/:id/reopen',
    {
      schema: {
        operationId: 'devtoolsReopenConversation',
        tags,
        security,
        summary: 'A teammate reopens a closed conversation, or unsnoozes a snoozed one',
        description,
        params,
        response: accepted(operatorActionSchema),
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const conversation = await ownConversation(userOf(request), id);
      if (conversation.state === 'open') throw invalidTransition('The conversation is open already');
      return reply.code(202).send(operatorActionView(await operator.open(id)));
    },
  );

  app.post(
    '/devtools/conversations/:id/assign',
    {
      schema: {
        operationId: 'devtoolsAssignConversation',
        tags,
        security,
        summary: 'A teammate assigns the conversation to themselves (the user never sees it)',
        description:
          `${description} The assignment comes as \`conversation.admin.assigned\`: it refreshes the ` +
          'cached conversation, and neither shows in the messages nor raises the unread badge.',
        params,
        response: accepted(operatorActionSchema),
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await ownConversation(userOf(request), id);
      return reply.code(202).send(operatorActionView(await operator.assign(id)));
    },
  );

  app.post(
    '/devtools/conversations/:id/note',
    {
      schema: {
        operationId: 'devtoolsNoteConversation',
        tags,
        security,
        summary: 'A teammate leaves an internal note on the conversation (the user never sees it)',
        description:
          `${description} The note comes as \`conversation.admin.noted\`: it refreshes the cached ` +
          'conversation, and neither shows in the messages nor pushes.',
        params,
        body: z.strictObject({ text: blockText({ max: 10_000 }) }),
        response: accepted(operatorActionSchema),
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await ownConversation(userOf(request), id);
      const result = await operator.note(id, { body: request.body.text });
      return reply.code(202).send(operatorActionView(result));
    },
  );

  app.post(
    '/devtools/archive-contact',
    {
      schema: {
        operationId: 'devtoolsArchiveContact',
        tags,
        security,
        summary: "A teammate archives the caller's contact; the next request of theirs unarchives it",
        description:
          "Sandbox only, on the caller's own contact (404 while they have none). No webhook: the sandbox " +
          'sends none for it. Reads of an archived contact answer 404 at Intercom, and the service meets ' +
          'that on its next write: creating the contact again answers 409 naming it, and it is unarchived.',
        response: { 204: z.null().describe('Archived'), 401: problemSchema, 404: problemSchema },
      },
    },
    async (request, reply) => {
      const contactId = await contactOfUser(pool, userOf(request));
      if (contactId === null || !records.contacts.has(contactId)) throw notFound('No support contact yet');
      operator.archiveContact(contactId);
      return reply.code(204).send(null);
    },
  );
};

export function sandboxRecord<T>(record: T | undefined, what: string): T {
  if (record === undefined) throw notFound(`${what} not found`);
  return record;
}
