import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createFeedCache } from '../../../queries/feed-cache.ts';
import { encodeCursor, instantIdPosition, limitParam } from '../../cursor.ts';
import { userOf } from '../../plugins/auth.ts';
import { replyToPoll, replyToTaggedPoll } from '../../poll.ts';
import { HttpProblem } from '../../problem.ts';
import { postSchema } from '../../views/api/posts.ts';
import {
  channelParams,
  clientErrors as errors,
  notModified,
  pollHeaders,
  postParams,
  sessionSecurity as security,
} from './conventions.ts';

const feedQuery = z.object({
  before: instantIdPosition().optional(),
  limit: limitParam,
});
const tags = ['channel'];
const ITEMS = Buffer.from('{"items":');

/** A channel's feed and its posts, as clients poll them. */
export const postsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, changes, config, media } = app.services;
  const feedPollMs = config.POLL_FEED_MS;
  const feed = createFeedCache(pool, changes, { countsLagMs: config.FEED_COUNTS_LAG_MS, media });

  app.get(
    '/channel/:id/posts',
    {
      schema: {
        operationId: 'listPosts',
        tags,
        security,
        summary: "Poll: a channel's published posts, newest first",
        description:
          'The posts change at once; their counters (views, reactions, comments) may lag up to ' +
          '`FEED_COUNTS_LAG_MS` (5 s by default), so that a busy post does not change the page on every view. ' +
          "The caller's own reactions (`mine`) show at once. `X-Poll-Interval` grows while the service is overloaded.",
        params: channelParams,
        querystring: feedQuery,
        headers: pollHeaders,
        response: {
          200: z
            .object({ items: z.array(postSchema), nextCursor: z.string().nullable() })
            .meta({ id: 'Feed' }),
          304: notModified,
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
        operationId: 'getPost',
        tags,
        security,
        summary: 'Poll: one published post',
        params: postParams,
        headers: pollHeaders,
        response: { 200: postSchema, 304: notModified, ...errors },
      },
    },
    async (request, reply) => {
      const { id: channelId, postId } = request.params;
      const post = await feed.post({ channelId, postId, userId: userOf(request) });
      if (!post) throw new HttpProblem(404, 'not_found', 'No such post.');
      return replyToPoll(request, reply, post, feedPollMs);
    },
  );
};
