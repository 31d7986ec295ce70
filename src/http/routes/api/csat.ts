import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type ChatDeps, conversationFor } from '../../../chat/conversations.ts';
import { ownedTicket } from '../../../chat/tickets.ts';
import { rate } from '../../../commands/csat.ts';
import { type CsatTarget, csatScoreSchema, csatTargetTypeSchema } from '../../../events/csat.ts';
import { blockText } from '../../../lib/text-rules.ts';
import { userCommandContext } from '../../command-context.ts';
import { userOf } from '../../plugins/auth.ts';
import { problemSchema } from '../../problem.ts';
import { csatRatingSchema } from '../../views/api/csat.ts';
import { idempotencyKeyHeader, sessionSecurity } from './conventions.ts';
import { providerId, supportErrors } from './support-schemas.ts';

const CSAT_PROJECTIONS = ['csat'];

const newRating = z.strictObject({
  targetType: csatTargetTypeSchema,
  targetId: providerId,
  rating: csatScoreSchema,
  // Empty (after trimming) is no comment. The words are the user's: never logged, never sent to Intercom.
  comment: blockText({ min: 0, max: 1000 }).optional(),
});

/**
 * Whether the caller's own conversation is closed, or their own ticket resolved, asked of the provider
 * read cache: 404 when Intercom has no such record, 403 when it is someone else's (decision 020).
 */
async function ownTargetEnded(
  chat: Pick<ChatDeps, 'cache' | 'contacts'>,
  userId: string,
  target: CsatTarget,
): Promise<boolean> {
  if (target.type === 'conversation') {
    const { record } = await conversationFor(chat, userId, target.id);
    return record.view.state === 'closed';
  }
  const { record } = await ownedTicket(chat, userId, target.id);
  return record.view.state === 'resolved';
}

/** API.md "CSAT": a user rates their own conversation or ticket, once (decision 029). */
export const csatRoutes: FastifyPluginAsyncZod = async (app) => {
  const { chat, store, waiter } = app.services;

  app.post(
    '/csat',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'submitCsatRating',
        tags: ['csat'],
        security: sessionSecurity,
        summary: 'Rates a closed conversation or a resolved ticket of the caller, 1 to 5 stars, once',
        description:
          "The target must be the caller's own (403 otherwise, 404 unknown), a conversation closed or a " +
          'ticket resolved (409 `conflict` before). The same rating again changes nothing and answers 200; ' +
          'another one answers 409 `already_rated`. The next poll of the target shows `rated` and `rating`.',
        headers: idempotencyKeyHeader,
        body: newRating,
        response: {
          200: csatRatingSchema,
          201: csatRatingSchema,
          409: problemSchema,
          422: problemSchema,
          ...supportErrors,
        },
      },
    },
    async (request, reply) => {
      const userId = userOf(request);
      const { targetType, targetId, rating, comment } = request.body;
      const targetEnded = await ownTargetEnded(chat, userId, { type: targetType, id: targetId });
      const command = {
        ratingId: randomUUID(),
        userId,
        targetType,
        targetId,
        rating,
        comment: comment === undefined || comment === '' ? null : comment,
        at: new Date().toISOString(),
        targetEnded,
      };
      const result = await rate(store, command, userCommandContext(request));
      // So that the caller's next poll of the target already shows it rated.
      await waiter.waitFor(CSAT_PROJECTIONS, result.position);
      const body = { id: result.id, targetType, targetId, rating: result.rating };
      return reply.code(result.created ? 201 : 200).send(body);
    },
  );
};
