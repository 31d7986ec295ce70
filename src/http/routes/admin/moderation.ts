import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../../lib/domain-error.ts';
import { moderate, type ModerationCommand } from '../../../commands/moderation.ts';
import { findChannel } from '../../../queries/channels.ts';
import { activeBans, channelModerators } from '../../../queries/moderation.ts';
import { adminCommandContext } from '../../command-context.ts';
import { adminOf } from '../../plugins/admin-auth.ts';
import { HttpProblem, problemSchema } from '../../problem.ts';
import { banSchema } from '../../views/admin/moderation.ts';
import { adminErrors, adminSecurity, idParams, userIdSchema } from './conventions.ts';
import { blockText } from '../../../lib/text-rules.ts';

const banBody = z.strictObject({
  userId: userIdSchema,
  until: z.iso.datetime({ offset: true }).optional().describe('Absent: until lifted'),
  reason: blockText({ max: 500 }),
});
const userParams = idParams.extend({ userId: userIdSchema });
const tags = ['admin: moderation'];
const security = adminSecurity;
const MODERATION_PROJECTIONS = ['moderation'];

/** API.md "Admin API > Moderation": bans and comment moderators. */
export const moderationRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, store, waiter } = app.services;
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
        operationId: 'adminListBans',
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
        operationId: 'adminBanUser',
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
        operationId: 'adminLiftBan',
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
        operationId: 'adminListModerators',
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
        operationId: type === 'assignModerator' ? 'adminAddModerator' : 'adminRemoveModerator',
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
};
