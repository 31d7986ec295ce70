import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { recordClick, recordRead, recordViews } from '../../../commands/interactions.ts';
import { react } from '../../../commands/reactions.ts';
import { MAX_VIEWS_PER_EVENT } from '../../../events/interactions.ts';
import type { DatabasePool } from '../../../db/pool.ts';
import type { EventStore } from '../../../events/store/port.ts';
import type { ObjectStorage } from '../../../integrations/storage/port.ts';
import type { ProjectionWaiter } from '../../../projections/progress.ts';
import type { ReadVersions } from '../../../projections/read-version.ts';
import { channelsForUser, findChannel } from '../../../queries/channels.ts';
import { createFeedCache } from '../../../queries/feed-cache.ts';
import {
  feedPost,
  postReactions,
  publishedAtOf,
  visibleAttachment,
  visibleButton,
} from '../../../queries/feed.ts';
import { userCommandContext } from '../../command-context.ts';
import { cursorParam, encodeCursor, limitParam } from '../../cursor.ts';
import { fileRequestHeaders, fileResponses, sendFile, storedObject } from '../../file-replies.ts';
import { userOf } from '../../plugins/auth.ts';
import { replyToPoll, replyToTaggedPoll } from '../../poll.ts';
import { HttpProblem, problemSchema } from '../../problem.ts';

export interface ChannelRouteOptions {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly waiter: ProjectionWaiter;
  readonly storage: ObjectStorage;
  readonly feedPollMs: number;
  readonly versions: ReadVersions;
}

const reactionsSchema = z
  .object({ counts: z.record(z.string(), z.number().int()), mine: z.array(z.string()) })
  .meta({ id: 'Reactions' });
const postSchema = z
  .object({
    id: z.uuid(),
    channelId: z.uuid(),
    text: z.string(),
    publishedAt: z.iso.datetime(),
    editedAt: z.iso.datetime().optional(),
    attachments: z.array(
      z.object({
        id: z.uuid(),
        kind: z.enum(['image', 'video', 'file']),
        url: z.string(),
        contentType: z.string(),
        size: z.number().int(),
        width: z.number().int().optional(),
        height: z.number().int().optional(),
        durationMs: z.number().int().optional(),
      }),
    ),
    buttons: z.array(z.object({ id: z.uuid(), label: z.string(), url: z.string() })),
    reactions: reactionsSchema,
    viewCount: z.number().int(),
    commentCount: z.number().int(),
    commentsEnabled: z.boolean(),
  })
  .meta({ id: 'Post' });

const channelParams = z.object({ id: z.uuid() });
const postParams = channelParams.extend({ postId: z.uuid() });
const reactionParams = postParams.extend({ emoji: z.string().min(1).max(32) });
const feedQuery = z.object({
  before: cursorParam(z.string().regex(/^[^|]+\|[0-9a-f-]{36}$/)).optional(),
  limit: limitParam,
});
const pollHeaders = z.object({ 'if-none-match': z.string().max(200).optional() });
const tags = ['channel'];
const security = [{ sessionJwt: [] }];
const errors = { 400: problemSchema, 401: problemSchema, 404: problemSchema, 429: problemSchema };
const REACTION_PROJECTIONS = ['reactions'];
const READ_PROJECTIONS = ['reads'];
const idempotencyKey = z.object({ 'idempotency-key': z.string().optional() });
const ITEMS = Buffer.from('{"items":');

export const channelRoutes: FastifyPluginAsyncZod<ChannelRouteOptions> = async (app, options) => {
  const { pool, store, waiter, storage, feedPollMs } = options;
  const feed = createFeedCache(pool, options.versions);

  app.get(
    '/channel/:id/posts',
    {
      schema: {
        tags,
        security,
        summary: "Poll: a channel's published posts, newest first",
        params: channelParams,
        querystring: feedQuery,
        headers: pollHeaders,
        response: {
          200: z
            .object({ items: z.array(postSchema), nextCursor: z.string().nullable() })
            .meta({ id: 'Feed' }),
          304: z.null().describe('Not modified'),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { before = null, limit } = request.query;
      const page = await feed.page({ channelId: request.params.id, userId: userOf(request), limit, before });
      const nextCursor = JSON.stringify(page.before === null ? null : encodeCursor(page.before));
      const json = () =>
        Buffer.concat([ITEMS, page.itemsJson(), Buffer.from(`,"nextCursor":${nextCursor}}`)]);
      return replyToTaggedPoll(request, reply, { etag: page.etag, json }, feedPollMs);
    },
  );

  app.get(
    '/channel/:id/posts/:postId',
    {
      schema: {
        tags,
        security,
        summary: 'Poll: one published post',
        params: postParams,
        headers: pollHeaders,
        response: { 200: postSchema, 304: z.null().describe('Not modified'), ...errors },
      },
    },
    async (request, reply) => {
      const post = await feedPost(pool, request.params.id, request.params.postId, userOf(request));
      if (!post) throw new HttpProblem(404, 'not_found', 'No such post.');
      return replyToPoll(request, reply, post, feedPollMs);
    },
  );

  for (const [method, type] of [
    ['PUT', 'add'],
    ['DELETE', 'remove'],
  ] as const) {
    app.route({
      method,
      url: '/channel/:id/posts/:postId/reactions/:emoji',
      schema: {
        tags,
        security,
        summary:
          type === 'add'
            ? "Adds the caller's reaction (one of the channel's); again changes nothing"
            : "Removes the caller's reaction; again changes nothing",
        params: reactionParams,
        response: { 200: reactionsSchema, 403: problemSchema, ...errors },
      },
      handler: async (request) => {
        const { id: channelId, postId, emoji } = request.params;
        const userId = userOf(request);
        const [channel, post] = await Promise.all([
          findChannel(pool, channelId),
          publishedAtOf(pool, channelId, postId),
        ]);
        const command = {
          type,
          channelId,
          postId,
          emoji,
          at: new Date().toISOString(),
          postVisible: post !== null,
          allowedEmoji: channel?.allowedReactions ?? [],
        };
        const { position } = await react(store, userId, command, userCommandContext(request));
        await waiter.waitFor(REACTION_PROJECTIONS, position);
        return postReactions(pool, postId, userId);
      },
    });
  }

  app.get(
    '/channels',
    {
      schema: {
        tags,
        security,
        summary: 'Every channel, with how many of its posts the caller has not read',
        response: {
          200: z
            .object({
              items: z.array(
                z.object({
                  id: z.uuid(),
                  title: z.string(),
                  description: z.string().optional(),
                  avatarUrl: z.string().optional(),
                  unread: z.number().int(),
                }),
              ),
            })
            .meta({ id: 'ChannelSummaries' }),
          401: problemSchema,
          429: problemSchema,
        },
      },
    },
    async (request) => ({ items: [...(await channelsForUser(pool, userOf(request)))] }),
  );

  app.post(
    '/channel/:id/views',
    {
      config: { idempotent: true },
      schema: {
        tags,
        security,
        summary: 'Records that the caller saw these posts; one view per (user, post) is counted',
        params: channelParams,
        headers: idempotencyKey,
        body: z
          .strictObject({ postIds: z.array(z.uuid()).min(1).max(MAX_VIEWS_PER_EVENT) })
          .meta({ id: 'PostViews' }),
        response: { 204: z.null().describe('Recorded'), ...errors },
      },
    },
    async (request, reply) => {
      const postIds = [...new Set(request.body.postIds)];
      const data = { channelId: request.params.id, postIds, at: new Date().toISOString() };
      await recordViews(store, userOf(request), data, userCommandContext(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/channel/:id/posts/:postId/buttons/:buttonId/click',
    {
      schema: {
        tags,
        security,
        summary: "Records a click on a post's button and answers where it leads",
        params: postParams.extend({ buttonId: z.uuid() }),
        response: { 200: z.object({ url: z.string() }).meta({ id: 'ButtonTarget' }), ...errors },
      },
    },
    async (request) => {
      const { id: channelId, postId, buttonId } = request.params;
      const button = await visibleButton(pool, channelId, postId, buttonId);
      if (!button) throw new HttpProblem(404, 'not_found', 'No such button.');
      const data = { channelId, postId, buttonId, at: new Date().toISOString() };
      await recordClick(store, userOf(request), data, userCommandContext(request));
      return { url: button.url };
    },
  );

  app.post(
    '/channel/:id/read',
    {
      config: { idempotent: true },
      schema: {
        tags,
        security,
        summary: "Moves the caller's read marker in a channel (never backwards)",
        params: channelParams,
        headers: idempotencyKey,
        body: z.strictObject({ lastReadPostId: z.uuid() }).meta({ id: 'ChannelReadMarker' }),
        response: { 204: z.null().describe('Moved'), ...errors },
      },
    },
    async (request, reply) => {
      const channelId = request.params.id;
      const { lastReadPostId } = request.body;
      const lastReadPublishedAt = await publishedAtOf(pool, channelId, lastReadPostId);
      if (lastReadPublishedAt === null) throw new HttpProblem(404, 'not_found', 'No such post.');
      const data = { channelId, lastReadPostId, lastReadPublishedAt, at: new Date().toISOString() };
      const position = await recordRead(store, userOf(request), data, userCommandContext(request));
      await waiter.waitFor(READ_PROJECTIONS, position);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/channel/:id/posts/:postId/attachments/:attachmentId',
    {
      schema: {
        tags,
        security,
        summary: "A published post's media (Range requests answer 206)",
        params: postParams.extend({ attachmentId: z.uuid() }),
        headers: fileRequestHeaders,
        response: { ...fileResponses, ...errors },
      },
    },
    async (request, reply) => {
      const { id, postId, attachmentId } = request.params;
      const found = await visibleAttachment(pool, id, postId, attachmentId);
      if (!found) throw new HttpProblem(404, 'not_found', 'No such attachment.');
      // Published media is the same for every reader: a private cache may keep it.
      const file = storedObject(attachmentId, found);
      return sendFile(reply, storage, file, request.headers.range, 'private, max-age=3600');
    },
  );
};
