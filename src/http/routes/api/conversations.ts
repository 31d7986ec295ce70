import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  markRead,
  ratedConversationFor,
  ratedConversationListOf,
  sendMessage,
} from '../../../chat/conversations.ts';
import { closeConversation } from '../../../chat/conversation-close.ts';
import { conversationSchema, conversationSummarySchema } from '../../../chat/conversation-views.ts';
import { createCsatRatings } from '../../../queries/csat.ts';
import { userOf } from '../../plugins/auth.ts';
import { replyToProviderRecord } from '../../poll-freshness.ts';
import { notModified, pollHeaders, sessionSecurity } from './conventions.ts';
import { providerId, supportErrors, supportTags } from './support-schemas.ts';
import { blockText, idText } from '../../../lib/text-rules.ts';
import { keptTelemetry, telemetrySchema } from './device-telemetry.ts';

const params = z.object({ id: providerId });
const tags = supportTags;
const security = sessionSecurity;
const errors = supportErrors;

const newMessage = z
  .strictObject({
    conversationId: providerId.optional(),
    text: blockText({ max: 10_000 }),
    attachmentIds: z.array(z.uuid()).max(10).optional(),
    reasonId: idText({ max: 100 }).optional(),
    telemetry: telemetrySchema.optional(),
  })
  .refine((body) => body.conversationId === undefined || body.reasonId === undefined, {
    message: 'a reason is given when opening a request, not in a reply',
    path: ['reasonId'],
  });

export const conversationsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { chat, config, hardwareIdKey } = app.services;
  const pollMs = config.POLL_CHAT_MS;
  // The `rated` overlay (decision 029): each user's ratings, read again only after they rate.
  const ratings = createCsatRatings(app.services.pool, app.services.changes, 'conversation');

  app.get(
    '/conversations',
    {
      schema: {
        operationId: 'listConversations',
        tags,
        security,
        summary: "Poll: the user's one continuous thread, every request oldest first",
        headers: pollHeaders,
        response: {
          200: z.object({ items: z.array(conversationSummarySchema) }).meta({ id: 'SupportConversations' }),
          304: notModified,
          ...errors,
        },
      },
    },
    async (request, reply) => {
      // Tagged once per change of what the list is made of: a poll that changes nothing reuses it.
      const answer = await ratedConversationListOf(chat, ratings, userOf(request));
      return replyToProviderRecord(request, reply, answer, pollMs);
    },
  );

  app.get(
    '/conversations/:id',
    {
      schema: {
        operationId: 'getConversation',
        tags,
        security,
        summary: 'Poll: one request with the messages its owner may see',
        params,
        headers: pollHeaders,
        response: { 200: conversationSchema, 304: notModified, ...errors },
      },
    },
    async (request, reply) =>
      replyToProviderRecord(
        request,
        reply,
        await ratedConversationFor(chat, ratings, userOf(request), request.params.id),
        pollMs,
      ),
  );

  app.post(
    '/conversations',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'createConversation',
        tags,
        security,
        summary: 'Opens a support request, or replies in one (with conversationId)',
        body: newMessage,
        response: {
          201: z
            .object({ conversationId: z.string(), messageId: z.string().optional(), created: z.boolean() })
            .meta({ id: 'SentMessage' }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { telemetry, ...message } = request.body;
      const input = { ...message, telemetry: keptTelemetry(telemetry, hardwareIdKey) };
      return reply.code(201).send(await sendMessage(chat, userOf(request), input));
    },
  );

  app.post(
    '/conversations/:id/read',
    {
      schema: {
        operationId: 'markConversationRead',
        tags,
        security,
        summary: "Moves the user's read marker (to the newest message without lastReadMessageId)",
        params,
        body: z.strictObject({ lastReadMessageId: providerId.optional() }).optional(),
        response: { 204: z.null().describe('Marked'), ...errors },
      },
    },
    async (request, reply) => {
      await markRead(chat, userOf(request), request.params.id, request.body?.lastReadMessageId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/conversations/:id/close',
    {
      schema: {
        operationId: 'closeConversation',
        tags,
        security,
        summary:
          'The user ends their request: closed at Intercom on their behalf (a no-op when closed already)',
        params,
        response: { 204: z.null().describe('Closed, or closed already'), ...errors },
      },
    },
    async (request, reply) => {
      await closeConversation(chat, userOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
