import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../../commands/errors.ts';
import { moderate, type ModerationCommand } from '../../../commands/moderation.ts';
import type { DatabasePool } from '../../../db/pool.ts';
import type { EventStore } from '../../../events/store/port.ts';
import type { ProjectionWaiter } from '../../../projections/progress.ts';
import { findChannel } from '../../../queries/channels.ts';
import { activeBans, channelModerators, moderationEvents } from '../../../queries/moderation.ts';
import { replayModeration } from '../../../queries/moderation-replay.ts';
import { adminCommandContext } from '../../command-context.ts';
import { cursorParam, encodeCursor, limitParam } from '../../cursor.ts';
import { adminOf } from '../../plugins/admin-auth.ts';
import { HttpProblem, problemSchema } from '../../problem.ts';
import { adminErrors, adminSecurity, idParams } from './views.ts';

export interface ModerationRouteOptions {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly waiter: ProjectionWaiter;
}

const userIdSchema = z.string().trim().min(1).max(256);
const banSchema = z
  .object({
    userId: z.string(),
    until: z.iso.datetime().nullable(),
    reason: z.string(),
    bannedBy: z.object({ type: z.string(), id: z.string() }),
    bannedAt: z.iso.datetime(),
  })
  .meta({ id: 'CommentBan' });
const banBody = z.strictObject({
  userId: userIdSchema,
  until: z.iso.datetime({ offset: true }).optional().describe('Absent: until lifted'),
  reason: z.string().trim().min(1).max(500),
});
const userParams = idParams.extend({ userId: userIdSchema });
const eventSchema = z
  .object({
    id: z.uuid(),
    channelId: z.uuid(),
    postId: z.uuid().nullable(),
    commentId: z.uuid().nullable(),
    userId: z.string().nullable(),
    action: z.string(),
    actor: z.object({ type: z.string(), id: z.string() }),
    reason: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()),
    occurredAt: z.iso.datetime(),
  })
  .meta({ id: 'ModerationEvent' });
const eventsQuery = z.object({
  channelId: z.uuid().optional(),
  userId: userIdSchema.optional(),
  commentId: z.uuid().optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  cursor: cursorParam(z.string().regex(/^\d{1,15}$/)).optional(),
  limit: limitParam,
});
const replaySchema = z
  .object({
    channelId: z.uuid(),
    asOf: z.iso.datetime(),
    comments: z.array(
      z.object({
        id: z.uuid(),
        postId: z.uuid(),
        authorId: z.string(),
        status: z.enum(['visible', 'hidden', 'deleted']),
        createdAt: z.iso.datetime(),
        reports: z.number().int(),
        openReports: z.number().int(),
      }),
    ),
    bans: z.array(z.object({ userId: z.string(), until: z.iso.datetime().nullable(), reason: z.string() })),
    moderators: z.array(z.string()),
  })
  .meta({ id: 'ModerationReplay' });

const tags = ['admin: moderation'];
const security = adminSecurity;
const MODERATION_PROJECTIONS = ['moderation'];

/** API.md "Admin API > Moderation" (bans, comment moderators) and "Moderation history". */
export const moderationRoutes: FastifyPluginAsyncZod<ModerationRouteOptions> = async (app, options) => {
  const { pool, store, waiter } = options;
  const channelMustExist = async (id: string) => {
    if (!(await findChannel(pool, id))) throw notFound('No such channel.');
  };
  const run = async (
    request: Parameters<typeof adminCommandContext>[0],
    channelId: string,
    command: ModerationCommand,
  ) => {
    const { position } = await moderate(store, channelId, command, adminCommandContext(request));
    await waiter.waitFor(MODERATION_PROJECTIONS, position);
  };

  app.get(
    '/channels/:id/bans',
    {
      config: { access: 'comments.moderate' },
      schema: {
        tags,
        security,
        summary: "The channel's bans that hold now",
        params: idParams,
        response: {
          200: z.object({ items: z.array(banSchema) }).meta({ id: 'CommentBanList' }),
          ...adminErrors,
        },
      },
    },
    async (request) => ({ items: [...(await activeBans(pool, request.params.id))] }),
  );

  app.post(
    '/channels/:id/bans',
    {
      config: { access: 'comments.moderate', audit: { action: 'bans.create', target: 'channel' } },
      schema: {
        tags,
        security,
        summary: 'Bans a user from commenting in the channel, until a time or until lifted',
        params: idParams,
        body: banBody,
        response: { 201: banSchema, 400: problemSchema, 404: problemSchema, ...adminErrors },
      },
    },
    async (request, reply) => {
      const { userId, reason } = request.body;
      const at = new Date();
      const until = request.body.until === undefined ? null : new Date(request.body.until);
      if (until !== null && until <= at) {
        throw new HttpProblem(400, 'validation_failed', 'The ban must end in the future.');
      }
      request.audit.detail = { userId, until: until?.toISOString() ?? 'until lifted' };
      await channelMustExist(request.params.id);
      const by = { type: 'admin' as const, id: adminOf(request).id };
      await run(request, request.params.id, {
        type: 'ban',
        userId,
        until: until?.toISOString() ?? null,
        reason,
        by,
        at: at.toISOString(),
      });
      const ban = (await activeBans(pool, request.params.id)).find((b) => b.userId === userId);
      if (!ban) throw new Error('the ban was appended but is not in the read table');
      return reply.code(201).send(ban);
    },
  );

  app.delete(
    '/channels/:id/bans/:userId',
    {
      config: { access: 'comments.moderate', audit: { action: 'bans.lift', target: 'channel' } },
      schema: {
        tags,
        security,
        summary: "Lifts a user's ban early (no ban: no change)",
        params: userParams,
        response: { 204: z.null(), 404: problemSchema, ...adminErrors },
      },
    },
    async (request, reply) => {
      const { id, userId } = request.params;
      request.audit.detail = { userId };
      await channelMustExist(id);
      const by = { type: 'admin' as const, id: adminOf(request).id };
      await run(request, id, { type: 'liftBan', userId, by, at: new Date().toISOString() });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/channels/:id/moderators',
    {
      config: { access: 'comments.moderate' },
      schema: {
        tags,
        security,
        summary: "The channel's comment moderators (user ids)",
        params: idParams,
        response: {
          200: z.object({ items: z.array(z.string()) }).meta({ id: 'CommentModeratorList' }),
          ...adminErrors,
        },
      },
    },
    async (request) => ({ items: [...(await channelModerators(pool, request.params.id))] }),
  );

  for (const [method, type] of [
    ['PUT', 'assignModerator'],
    ['DELETE', 'revokeModerator'],
  ] as const) {
    app.route({
      method,
      url: '/channels/:id/moderators/:userId',
      config: {
        access: 'comments.moderate',
        audit: {
          action: type === 'assignModerator' ? 'moderators.assign' : 'moderators.revoke',
          target: 'channel',
        },
      },
      schema: {
        tags,
        security,
        summary:
          type === 'assignModerator'
            ? 'Makes a user a comment moderator of the channel (again: no change)'
            : 'Ends a user being a comment moderator of the channel (again: no change)',
        params: userParams,
        response: { 204: z.null(), 404: problemSchema, ...adminErrors },
      },
      handler: async (request, reply) => {
        const { id, userId } = userParams.parse(request.params);
        request.audit.detail = { userId };
        await channelMustExist(id);
        const by = { type: 'admin' as const, id: adminOf(request).id };
        await run(request, id, { type, userId, by, at: new Date().toISOString() });
        return reply.code(204).send(null);
      },
    });
  }

  app.get(
    '/moderation/events',
    {
      config: { access: 'moderation.read' },
      schema: {
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
            .object({ items: z.array(eventSchema), nextCursor: z.string().nullable() })
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
        tags,
        security,
        summary:
          "A channel's comments, bans and moderators as they stood at an instant, from the event store",
        description:
          'Rebuilt from the event store alone, not from the read tables: every event recorded up to `asOf` ' +
          '(now when absent), folded as the commands fold them.',
        querystring: z.object({ channelId: z.uuid(), asOf: z.iso.datetime({ offset: true }).optional() }),
        response: { 200: replaySchema, 400: problemSchema, ...adminErrors },
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
