import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { moderationEvents } from '../../../queries/moderation.ts';
import { replayModeration } from '../../../commands/moderation-replay.ts';
import { cursorParam, encodeCursor, limitParam } from '../../cursor.ts';
import { problemSchema } from '../../problem.ts';
import { moderationEventSchema, moderationReplaySchema } from '../../views/admin/moderation.ts';
import { adminErrors, adminSecurity, userIdSchema } from './conventions.ts';

const eventsQuery = z.object({
  channelId: z.uuid().optional(),
  userId: userIdSchema.optional(),
  commentId: z.uuid().optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  cursor: cursorParam(z.string().regex(/^\d{1,15}$/)).optional(),
  limit: limitParam,
});
const tags = ['admin: moderation'];
const security = adminSecurity;

/** API.md "Moderation history": what moderation did, from the read model, and replayed from the log. */
export const moderationHistoryRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, store } = app.services;

  app.get(
    '/moderation/events',
    {
      config: { access: 'moderation.read' },
      schema: {
        operationId: 'adminListModerationEvents',
        tags,
        security,
        summary: 'Moderation history, newest first (from the read model)',
        description:
          'Every moderation event: hides, unhides, deletes, reports, automatic hides (with the rule and the ' +
          'threshold used), resolutions, bans, lifts, moderators assigned and revoked, and rejected comments ' +
          '(their rule, a redacted snippet and a keyed hash only). `from` inclusive, `to` exclusive.',
        querystring: eventsQuery,
        response: {
          200: z
            .object({ items: z.array(moderationEventSchema), nextCursor: z.string().nullable() })
            .meta({ id: 'ModerationEventList' }),
          400: problemSchema,
          ...adminErrors,
        },
      },
    },
    async (request) => {
      const { cursor, limit, ...filter } = request.query;
      const rows = await moderationEvents(pool, {
        ...filter,
        beforeSeq: cursor === undefined ? undefined : Number(cursor),
        limit: limit + 1,
      });
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return {
        items: items.map(({ seq: _, ...event }) => event),
        nextCursor: rows.length > limit && last ? encodeCursor(String(last.seq)) : null,
      };
    },
  );

  app.get(
    '/moderation/replay',
    {
      config: { access: 'moderation.read' },
      schema: {
        operationId: 'adminReplayModeration',
        tags,
        security,
        summary:
          "A channel's comments, bans and moderators as they stood at an instant, from the event store",
        description:
          'Rebuilt from the event store alone, not from the read tables: every event recorded up to `asOf` ' +
          '(now when absent), folded as the commands fold them.',
        querystring: z.object({ channelId: z.uuid(), asOf: z.iso.datetime({ offset: true }).optional() }),
        response: { 200: moderationReplaySchema, 400: problemSchema, ...adminErrors },
      },
    },
    async (request) => {
      const asOf = request.query.asOf === undefined ? new Date() : new Date(request.query.asOf);
      const replayed = await replayModeration(store, request.query.channelId, asOf);
      return {
        ...replayed,
        comments: [...replayed.comments],
        bans: [...replayed.bans],
        moderators: [...replayed.moderators],
      };
    },
  );
};
