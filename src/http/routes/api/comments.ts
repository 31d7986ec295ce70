import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { postComment } from '../../../commands/comment-posting.ts';
import { notFound } from '../../../lib/domain-error.ts';
import { createCommentsCache } from '../../../queries/comments-cache.ts';
import { userCommandContext } from '../../command-context.ts';
import { commentBodyReader } from '../../comment-body.ts';
import { cursorParam, encodeCursor, limitParam } from '../../cursor.ts';
import { userOf } from '../../plugins/auth.ts';
import { replyToTaggedPoll } from '../../poll.ts';
import { HttpProblem, problemSchema } from '../../problem.ts';
import { commentSchema, commentView, isTombstone, tombstoneSchema } from '../../views/api/comments.ts';
import { documentMultipart } from '../../multipart-docs.ts';
import {
  clientErrors as errors,
  notModified,
  pollHeaders,
  postParams,
  sessionSecurity as security,
} from './conventions.ts';

const pollQuery = z.object({
  since: cursorParam(z.string().regex(/^\d{1,15}$/)).optional(),
  limit: limitParam,
});
const tags = ['comments'];
const COMMENT_PROJECTIONS = ['comments'];

/** A post's comment thread: polled by its readers, written to by them. */
export const commentsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, waiter, changes, config, commentPosting, uploadCaps, media } = app.services;
  const cache = createCommentsCache(pool, changes, media);
  /** Pictures linked for a period of media links (decision 033). */
  const pictures = (period: number) => (comment: { readonly id: string; readonly storageKey: string }) =>
    media.commentImage(period, comment);
  const readComment = commentBodyReader(config.COMMENT_MAX_LENGTH);
  await app.register(multipart, {
    // The image's own cap is enforced while its bytes stream (inspectUpload); this is a backstop.
    limits: {
      fileSize: uploadCaps.image + 1,
      files: 1,
      fields: 1,
      parts: 2,
      fieldSize: 4 * config.COMMENT_MAX_LENGTH,
    },
  });

  app.get(
    '/channel/:id/posts/:postId/comments',
    {
      schema: {
        operationId: 'listComments',
        tags,
        security,
        summary: "Poll: a post's comments, as changes after a cursor",
        description:
          'Without `since`, the latest page of visible comments (hidden ones too for moderators), oldest first. ' +
          'With `since`, what changed after it, in change order: new comments, and comments that changed; a ' +
          'comment this reader may not see comes back as `{ id, status }` so the client can drop it. ' +
          '`nextCursor` is where to poll from next.',
        params: postParams,
        querystring: pollQuery,
        headers: pollHeaders,
        response: {
          200: z
            .object({ items: z.array(z.union([commentSchema, tombstoneSchema])), nextCursor: z.string() })
            .meta({ id: 'CommentPage' }),
          304: notModified,
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const userId = userOf(request);
      const { since, limit } = request.query;
      const answer = await cache.poll({
        channelId: request.params.id,
        postId: request.params.postId,
        userId,
        since: since === undefined ? null : Number(since),
        limit,
      });
      if (!answer) throw notFound('No such post.');
      const json = () =>
        JSON.stringify({
          items: answer
            .items()
            .map((item) =>
              isTombstone(item) ? item : commentView(item, userId, pictures(answer.linkPeriod)),
            ),
          nextCursor: encodeCursor(String(answer.next)),
        });
      return replyToTaggedPoll(request, reply, { etag: answer.etag, json }, config.POLL_COMMENTS_MS);
    },
  );

  app.post(
    '/channel/:id/posts/:postId/comments',
    {
      config: {
        idempotent: true,
        swaggerTransform: documentMultipart({
          fields: {
            text: { kind: 'text', description: 'Sent first', maxLength: config.COMMENT_MAX_LENGTH },
            image: { kind: 'file', description: 'An optional image, after `text`' },
          },
          required: ['text'],
          json: {
            type: 'object',
            properties: { text: { type: 'string', minLength: 1, maxLength: config.COMMENT_MAX_LENGTH } },
            required: ['text'],
            additionalProperties: false,
          },
        }),
      },
      schema: {
        operationId: 'createComment',
        tags,
        security,
        summary:
          'Comments on a post (JSON `{ text }`, or multipart: field `text` first, then an optional `image`)',
        description:
          'Checked before anything is stored: no links, no secrets (422 comment_contains_link, ' +
          'comment_dlp_blocked), the slow mode (429 rate_limited), bans (403 user_banned with until) and ' +
          'closed comments (403 comments_closed).',
        consumes: ['application/json', 'multipart/form-data'],
        params: postParams,
        response: {
          201: commentSchema,
          403: problemSchema,
          413: problemSchema,
          415: problemSchema,
          422: problemSchema,
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const userId = userOf(request);
      const { id: channelId, postId } = request.params;
      const context = userCommandContext(request);
      const outcome = await readComment(request, (text, image) =>
        postComment(commentPosting, { channelId, postId, userId, text, image }, context),
      );
      if (outcome.kind === 'rejected') {
        // Never the text, nor what in it broke the rule.
        throw outcome.rule === 'link'
          ? new HttpProblem(422, 'comment_contains_link', 'Comments may not contain links.')
          : new HttpProblem(
              422,
              'comment_dlp_blocked',
              'The comment looks like it holds a secret; it was not posted.',
            );
      }
      if (outcome.kind === 'rate_limited') {
        const seconds = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
        throw new HttpProblem(429, 'rate_limited', `Slow mode: retry in ${seconds} s.`, {
          'retry-after': String(seconds),
        });
      }
      // The author's next poll shows the comment.
      await waiter.waitFor(COMMENT_PROJECTIONS, outcome.position);
      return reply.code(201).send(commentView(outcome.comment, userId, pictures(media.period())));
    },
  );
};
