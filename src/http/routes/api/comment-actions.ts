import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type CommentCommand, handleComment } from '../../../commands/comments.ts';
import { reportReasonSchema } from '../../../events/comments.ts';
import { forbidden, notFound } from '../../../lib/domain-error.ts';
import { commentTarget, findPostComment } from '../../../queries/comments.ts';
import { isCommentModerator } from '../../../queries/moderation.ts';
import { userCommandContext } from '../../command-context.ts';
import { userOf } from '../../plugins/auth.ts';
import { problemSchema } from '../../problem.ts';
import { clientErrors as errors, commentParams, sessionSecurity as security } from './conventions.ts';
import { blockText } from '../../../lib/text-rules.ts';

const reportBody = z.strictObject({
  reason: reportReasonSchema,
  note: blockText({ min: 0, max: 500 }).optional(),
});
const hideBody = z.strictObject({ reason: blockText({ max: 500 }).optional() }).optional();
const tags = ['comments'];
const COMMENT_PROJECTIONS = ['comments'];

/** What readers do to one comment: delete their own, report one, and (client moderators) hide and unhide. */
export const commentActionsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, store, waiter } = app.services;

  /** Runs a command on a comment and waits until the poll shows it (read-your-writes). */
  const commentCommand = async (
    request: FastifyRequest,
    commentId: string,
    command: Exclude<CommentCommand, { type: 'post' }>,
  ) => {
    const { position } = await handleComment(store, commentId, command, userCommandContext(request));
    await waiter.waitFor(COMMENT_PROJECTIONS, position);
  };

  const commentMustExist = async (params: z.infer<typeof commentParams>) => {
    const { id: channelId, postId, commentId } = params;
    if (!(await findPostComment(pool, { channelId, postId, commentId }))) throw notFound('No such comment.');
  };

  app.delete(
    '/channel/:id/posts/:postId/comments/:commentId',
    {
      schema: {
        operationId: 'deleteComment',
        tags,
        security,
        summary: "Deletes the caller's own comment (again: no change)",
        params: commentParams,
        response: { 204: z.null(), 403: problemSchema, ...errors },
      },
    },
    async (request, reply) => {
      await commentMustExist(request.params);
      const command = { type: 'deleteOwn' as const, userId: userOf(request), at: new Date().toISOString() };
      await commentCommand(request, request.params.commentId, command);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/channel/:id/posts/:postId/comments/:commentId/report',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'reportComment',
        tags,
        security,
        summary: 'Reports a comment (one report per user and comment; again: no change)',
        params: commentParams,
        body: reportBody,
        response: { 202: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      const { id: channelId, postId, commentId } = request.params;
      const [target] = await Promise.all([
        commentTarget(pool, channelId, postId),
        commentMustExist(request.params),
      ]);
      if (!target) throw notFound('No such post.');
      const { reason, note } = request.body;
      const command = {
        type: 'report' as const,
        reportId: randomUUID(),
        reporterId: userOf(request),
        reason,
        ...(note ? { note } : {}),
        autoHideThreshold: target.autoHideReports,
        at: new Date().toISOString(),
      };
      await commentCommand(request, commentId, command);
      return reply.code(202).send(null);
    },
  );

  for (const type of ['hide', 'unhide'] as const) {
    app.post(
      `/channel/:id/posts/:postId/comments/:commentId/${type}`,
      {
        schema: {
          operationId: type === 'hide' ? 'hideComment' : 'unhideComment',
          tags,
          security,
          summary:
            type === 'hide'
              ? 'Hides a comment (channel comment moderators only)'
              : 'Shows a hidden comment again (channel comment moderators only)',
          params: commentParams,
          ...(type === 'hide' ? { body: hideBody } : {}),
          response: { 204: z.null(), 403: problemSchema, 409: problemSchema, ...errors },
        },
      },
      async (request, reply) => {
        const userId = userOf(request);
        if (!(await isCommentModerator(pool, request.params.id, userId))) {
          throw forbidden('Only the comment moderators of this channel can do that.');
        }
        await commentMustExist(request.params);
        const by = { type: 'moderator' as const, id: userId };
        const at = new Date().toISOString();
        const reason = (request.body as z.infer<typeof hideBody>)?.reason;
        const command = type === 'hide' ? { type, by, at, ...(reason ? { reason } : {}) } : { type, by, at };
        await commentCommand(request, request.params.commentId, command);
        return reply.code(204).send(null);
      },
    );
  }
};
