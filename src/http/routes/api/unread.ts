import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { unreadOf } from '../../../chat/unread.ts';
import { userOf } from '../../plugins/auth.ts';
import { replyToProviderPoll } from '../../poll-freshness.ts';
import { problemSchema } from '../../problem.ts';

export const unreadRoutes: FastifyPluginAsyncZod = async (app) => {
  const { chat, config } = app.services;
  const pollMs = config.POLL_CHAT_MS;
  app.get(
    '/unread',
    {
      schema: {
        operationId: 'getUnreadCounts',
        tags: ['support', 'channel'],
        security: [{ sessionJwt: [] }],
        summary: 'Poll: unread badges of the support chat, the tickets and every channel',
        headers: z.object({ 'if-none-match': z.string().max(200).optional() }),
        response: {
          200: z
            .object({
              conversations: z.number().int().min(0),
              tickets: z.number().int().min(0),
              channels: z.record(z.string(), z.number().int().min(0)),
            })
            .meta({ id: 'Unread' }),
          304: z.null().describe('Not modified'),
          401: problemSchema,
          429: problemSchema,
          503: problemSchema,
        },
      },
    },
    async (request, reply) => {
      const { unread, freshness } = await unreadOf(chat, userOf(request));
      return replyToProviderPoll(request, reply, { body: unread, freshness }, pollMs);
    },
  );
};
