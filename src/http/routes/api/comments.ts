import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type CommentCommand, handleComment } from '../../../commands/comments.ts';
import { forbidden, notFound } from '../../../commands/errors.ts';
import {
  type PostCommentDeps,
  postComment,
  type PostCommentOutcome,
} from '../../../commands/comment-posting.ts';
import type { SlowMode } from '../../../integrations/rate-limiters/slow-mode.ts';
import { reportReasonSchema } from '../../../events/comments.ts';
import type { DatabasePool } from '../../../db/pool.ts';
import type { EventStore } from '../../../events/store/port.ts';
import type { ObjectStorage } from '../../../integrations/storage/port.ts';
import type { ProjectionWaiter } from '../../../projections/progress.ts';
import type { ReadVersions } from '../../../projections/read-version.ts';
import {
  commentImage,
  type CommentRow,
  commentTarget,
  createPostingContextLookup,
  findComment,
} from '../../../queries/comments.ts';
import { createCommentsCache, type Tombstone } from '../../../queries/comments-cache.ts';
import { isCommentModerator } from '../../../queries/moderation.ts';
import { userCommandContext } from '../../command-context.ts';
import { cursorParam, encodeCursor, limitParam } from '../../cursor.ts';
import { fileRequestHeaders, fileResponses, sendFile, storedObject } from '../../file-replies.ts';
import { userOf } from '../../plugins/auth.ts';
import { replyToTaggedPoll } from '../../poll.ts';
import { HttpProblem, problemSchema } from '../../problem.ts';

export interface CommentRouteOptions {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly waiter: ProjectionWaiter;
  readonly storage: ObjectStorage;
  readonly versions: ReadVersions;
  readonly slowMode: SlowMode;
  /** Keys the hash that records a rejected comment. */
  readonly hashKey: string;
  readonly maxImageBytes: number;
  readonly commentMaxLength: number;
  readonly pollMs: number;
}

export const commentSchema = z
  .object({
    id: z.uuid(),
    postId: z.uuid(),
    author: z.object({ userId: z.string(), displayName: z.string().optional(), isModerator: z.boolean() }),
    text: z.string(),
    image: z
      .object({ url: z.string(), width: z.number().int().optional(), height: z.number().int().optional() })
      .optional(),
    createdAt: z.iso.datetime(),
    status: z.enum(['visible', 'hidden', 'deleted']),
    mine: z.boolean(),
  })
  .meta({ id: 'Comment' });
const tombstoneSchema = z
  .object({ id: z.uuid(), status: z.enum(['hidden', 'deleted']) })
  .meta({ id: 'CommentTombstone' });

const postParams = z.object({ id: z.uuid(), postId: z.uuid() });
const commentParams = postParams.extend({ commentId: z.uuid() });
const pollQuery = z.object({
  since: cursorParam(z.string().regex(/^\d{1,15}$/)).optional(),
  limit: limitParam,
});
const pollHeaders = z.object({ 'if-none-match': z.string().max(200).optional() });
const reportBody = z.strictObject({
  reason: reportReasonSchema,
  note: z.string().trim().max(500).optional(),
});
const hideBody = z.strictObject({ reason: z.string().trim().min(1).max(500).optional() }).optional();
const tags = ['comments'];
const security = [{ sessionJwt: [] }];
const errors = { 400: problemSchema, 401: problemSchema, 404: problemSchema, 429: problemSchema };
const COMMENT_PROJECTIONS = ['comments'];

/** A comment as API.md gives it to one reader. */
export function commentView(row: CommentRow, readerId: string) {
  const { id, postId, channelId, image } = row;
  return {
    id,
    postId,
    author: { userId: row.authorId, isModerator: row.authorIsModerator },
    text: row.text,
    ...(image
      ? {
          image: {
            url: `/api/channel/${channelId}/posts/${postId}/comments/${id}/image`,
            ...(image.width === undefined ? {} : { width: image.width }),
            ...(image.height === undefined ? {} : { height: image.height }),
          },
        }
      : {}),
    createdAt: row.createdAt,
    status: row.status,
    mine: row.authorId === readerId,
  };
}

const isTombstone = (item: CommentRow | Tombstone): item is Tombstone => !('authorId' in item);

/** `text` and an optional `image`, from JSON or from a multipart form whose `text` comes first. */
async function readComment(
  request: FastifyRequest,
  textSchema: z.ZodType<string>,
  jsonSchema: z.ZodType<{ text: string }>,
  post: (text: string, image?: Readable) => Promise<PostCommentOutcome>,
): Promise<PostCommentOutcome> {
  if (!request.isMultipart()) {
    const parsed = jsonSchema.safeParse(request.body);
    if (!parsed.success) throw invalid(parsed.error.issues.map((i) => i.message).join('; '));
    return post(parsed.data.text);
  }
  let text: string | undefined;
  for await (const part of request.parts()) {
    if (part.type === 'field' && part.fieldname === 'text' && text === undefined) {
      const parsed = textSchema.safeParse(part.value);
      if (!parsed.success) throw invalid(parsed.error.issues.map((i) => i.message).join('; '));
      text = parsed.data;
      continue;
    }
    if (part.type === 'file' && part.fieldname === 'image' && text !== undefined) {
      return post(text, part.file);
    }
    throw invalid('Send the field `text` first, then at most one file field `image`.');
  }
  if (text === undefined) throw invalid('The field `text` is required.');
  return post(text);
}

const invalid = (message: string) =>
  new HttpProblem(400, 'validation_failed', `The comment is invalid: ${message}.`);

export const commentRoutes: FastifyPluginAsyncZod<CommentRouteOptions> = async (app, options) => {
  const { pool, store, waiter, storage } = options;
  const cache = createCommentsCache(pool, options.versions);
  const deps: PostCommentDeps = {
    postingContext: createPostingContextLookup(pool),
    store,
    storage,
    caps: { image: options.maxImageBytes, file: 0, video: 0 },
    slowMode: options.slowMode,
    hashKey: options.hashKey,
  };
  const textSchema = z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(options.commentMaxLength, `must be at most ${options.commentMaxLength} characters`);
  // Built once: zod compiles a schema on first use, which per request would cost more than the check.
  const jsonSchema = z.strictObject({ text: textSchema });
  await app.register(multipart, {
    // The image's own cap is enforced while its bytes stream (inspectUpload); this is a backstop.
    limits: {
      fileSize: options.maxImageBytes + 1,
      files: 1,
      fields: 1,
      parts: 2,
      fieldSize: 4 * options.commentMaxLength,
    },
  });

  /** Runs a command on a comment and waits until the poll shows it (read-your-writes). */
  const commentCommand = async (request: FastifyRequest, commentId: string, command: CommentCommand) => {
    const { position } = await handleComment(store, commentId, command, userCommandContext(request));
    await waiter.waitFor(COMMENT_PROJECTIONS, position);
  };

  /** The comment, when it belongs to that post of that channel. */
  const commentOf = async (params: z.infer<typeof commentParams>) => {
    const comment = await findComment(pool, params.commentId);
    if (comment?.postId !== params.postId || comment.channelId !== params.id)
      throw notFound('No such comment.');
    return comment;
  };

  app.get(
    '/channel/:id/posts/:postId/comments',
    {
      schema: {
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
          304: z.null().describe('Not modified'),
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
          items: answer.items().map((item) => (isTombstone(item) ? item : commentView(item, userId))),
          nextCursor: encodeCursor(String(answer.next)),
        });
      return replyToTaggedPoll(request, reply, { etag: answer.etag, json }, options.pollMs);
    },
  );

  app.post(
    '/channel/:id/posts/:postId/comments',
    {
      config: { idempotent: true },
      schema: {
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
      const outcome = await readComment(request, textSchema, jsonSchema, (text, image) =>
        postComment(deps, { channelId, postId, userId, text, image }, context),
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
      return reply.code(201).send(commentView(outcome.comment, userId));
    },
  );

  app.delete(
    '/channel/:id/posts/:postId/comments/:commentId',
    {
      schema: {
        tags,
        security,
        summary: "Deletes the caller's own comment (again: no change)",
        params: commentParams,
        response: { 204: z.null(), 403: problemSchema, ...errors },
      },
    },
    async (request, reply) => {
      await commentOf(request.params);
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
      const [target] = await Promise.all([commentTarget(pool, channelId, postId), commentOf(request.params)]);
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
        await commentOf(request.params);
        const by = { type: 'moderator' as const, id: userId };
        const at = new Date().toISOString();
        const reason = (request.body as z.infer<typeof hideBody>)?.reason;
        const command = type === 'hide' ? { type, by, at, ...(reason ? { reason } : {}) } : { type, by, at };
        await commentCommand(request, request.params.commentId, command);
        return reply.code(204).send(null);
      },
    );
  }

  app.get(
    '/channel/:id/posts/:postId/comments/:commentId/image',
    {
      schema: {
        tags,
        security,
        summary: "A comment's picture (visible comments; hidden ones for moderators)",
        params: commentParams,
        headers: fileRequestHeaders,
        response: { ...fileResponses, ...errors },
      },
    },
    async (request, reply) => {
      const comment = await commentOf(request.params);
      const visible =
        comment.status === 'visible' ||
        (comment.status === 'hidden' && (await isCommentModerator(pool, comment.channelId, userOf(request))));
      const image = visible ? await commentImage(pool, comment.id) : null;
      if (!image) throw notFound('No such image.');
      const file = storedObject(comment.id, image);
      return sendFile(reply, storage, file, request.headers.range, 'private, no-cache');
    },
  );
};
