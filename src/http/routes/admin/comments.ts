import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { handleComment } from '../../../commands/comments.ts';
import { invalidTransition, notFound } from '../../../lib/domain-error.ts';
import { commentStatusSchema, reportActionSchema } from '../../../events/comments.ts';
import { channelComments, findReport, listReports } from '../../../queries/comments.ts';
import { adminOf } from '../../plugins/admin-auth.ts';
import { adminCommandContext } from '../../command-context.ts';
import { encodeInstantIdCursor, instantIdCursor, limitParam } from '../../cursor.ts';
import { problemSchema } from '../../problem.ts';
import { adminCommentSchema, adminCommentView, reportSchema } from '../../views/admin/comments.ts';
import { adminErrors, adminSecurity, idParams } from './conventions.ts';
import { blockText } from '../../../lib/text-rules.ts';

const listQuery = z.object({
  status: commentStatusSchema.optional(),
  postId: z.uuid().optional(),
  reported: z.enum(['true', 'false']).optional(),
  cursor: instantIdCursor().optional(),
  limit: limitParam,
});
const reportsQuery = z.object({
  status: z.enum(['open', 'resolved']).default('open'),
  cursor: instantIdCursor().optional(),
  limit: limitParam,
});
const reasonBody = z.strictObject({ reason: blockText({ max: 500 }) });
const tags = ['admin: moderation'];
const security = adminSecurity;
// The moderation log too: a moderator who acts sees the action in the history at once.
const COMMENT_PROJECTIONS = ['comments', 'moderation'];

/** API.md "Admin API > Moderation": channel comments, moderators' actions on them, the report queue. */
export const adminCommentsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, store, waiter } = app.services;

  app.get(
    '/channels/:id/comments',
    {
      config: { access: 'comments.moderate' },
      schema: {
        operationId: 'adminListChannelComments',
        tags,
        security,
        summary: "A channel's comments for moderators, newest first (every status unless filtered)",
        params: idParams,
        querystring: listQuery,
        response: {
          200: z
            .object({ items: z.array(adminCommentSchema), nextCursor: z.string().nullable() })
            .meta({ id: 'AdminCommentList' }),
          400: problemSchema,
          ...adminErrors,
        },
      },
    },
    async (request) => {
      const { status, postId, reported, limit } = request.query;
      const before = request.query.cursor;
      const rows = await channelComments(pool, request.params.id, {
        status,
        postId,
        reported: reported === 'true',
        before: before ? { createdAt: before.at, id: before.id } : undefined,
        limit: limit + 1,
      });
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return {
        items: items.map(adminCommentView),
        nextCursor: rows.length > limit && last ? encodeInstantIdCursor(last.createdAt, last.id) : null,
      };
    },
  );

  const moderation = [
    {
      type: 'hide',
      operationId: 'adminHideComment',
      method: 'POST',
      url: '/comments/:id/hide',
      reason: true,
      summary: 'Hides a comment',
    },
    {
      type: 'unhide',
      operationId: 'adminUnhideComment',
      method: 'POST',
      url: '/comments/:id/unhide',
      reason: false,
      summary: 'Shows a hidden comment',
    },
    {
      type: 'delete',
      operationId: 'adminDeleteComment',
      method: 'DELETE',
      url: '/comments/:id',
      reason: true,
      summary: 'Deletes a comment',
    },
  ] as const;
  for (const spec of moderation) {
    app.route({
      method: spec.method,
      url: spec.url,
      config: { access: 'comments.moderate', audit: { action: `comments.${spec.type}`, target: 'comment' } },
      schema: {
        operationId: spec.operationId,
        tags,
        security,
        summary: `${spec.summary} (again: no change)`,
        params: idParams,
        ...(spec.reason ? { body: reasonBody } : {}),
        response: {
          204: z.null(),
          400: problemSchema,
          404: problemSchema,
          409: problemSchema,
          ...adminErrors,
        },
      },
      handler: async (request, reply) => {
        const by = { type: 'admin' as const, id: adminOf(request).id };
        const at = new Date().toISOString();
        const reason = spec.reason ? reasonBody.parse(request.body).reason : undefined;
        if (reason) request.audit.detail = { reason };
        const { id } = idParams.parse(request.params);
        const command =
          spec.type === 'unhide'
            ? { type: spec.type, by, at }
            : { type: spec.type, by, at, ...(reason ? { reason } : {}) };
        const { position } = await handleComment(store, id, command, adminCommandContext(request));
        await waiter.waitFor(COMMENT_PROJECTIONS, position);
        return reply.code(204).send(null);
      },
    });
  }

  app.get(
    '/reports',
    {
      config: { access: 'comments.moderate' },
      schema: {
        operationId: 'adminListReports',
        tags,
        security,
        summary: 'The report queue, the longest waiting first',
        querystring: reportsQuery,
        response: {
          200: z
            .object({ items: z.array(reportSchema), nextCursor: z.string().nullable() })
            .meta({ id: 'CommentReportList' }),
          400: problemSchema,
          ...adminErrors,
        },
      },
    },
    async (request) => {
      const { status, limit } = request.query;
      const after = request.query.cursor;
      const rows = await listReports(
        pool,
        status,
        limit + 1,
        after ? { createdAt: after.at, id: after.id } : null,
      );
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return {
        items: [...items],
        nextCursor: rows.length > limit && last ? encodeInstantIdCursor(last.createdAt, last.id) : null,
      };
    },
  );

  app.post(
    '/reports/:id/resolve',
    {
      config: { access: 'comments.moderate', audit: { action: 'reports.resolve', target: 'report' } },
      schema: {
        operationId: 'adminResolveReport',
        tags,
        security,
        summary:
          'Resolves a report, and with it every open report on that comment (hide and delete also act)',
        params: idParams,
        body: z.strictObject({ action: reportActionSchema }),
        response: {
          200: reportSchema,
          400: problemSchema,
          404: problemSchema,
          409: problemSchema,
          ...adminErrors,
        },
      },
    },
    async (request) => {
      const report = await findReport(pool, request.params.id);
      if (!report) throw notFound('No such report.');
      if (report.status !== 'open') throw invalidTransition('The report is resolved already.');
      const { action } = request.body;
      request.audit.detail = { action, commentId: report.commentId };
      const by = { type: 'admin' as const, id: adminOf(request).id };
      const command = { type: 'resolveReports' as const, action, by, at: new Date().toISOString() };
      const { position } = await handleComment(
        store,
        report.commentId,
        command,
        adminCommandContext(request),
      );
      await waiter.waitFor(COMMENT_PROJECTIONS, position);
      const resolved = await findReport(pool, report.id);
      if (!resolved) throw notFound('No such report.');
      return resolved;
    },
  );
};
