import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { recordClick, recordRead, recordViews } from '../../../commands/interactions.ts';
import { MAX_VIEWS_PER_EVENT } from '../../../events/interactions.ts';
import { publishedAtOf, visibleButton } from '../../../queries/feed.ts';
import { userCommandContext } from '../../command-context.ts';
import { userOf } from '../../plugins/auth.ts';
import { HttpProblem } from '../../problem.ts';
import {
  channelParams,
  clientErrors as errors,
  idempotencyKeyHeader as idempotencyKey,
  postParams,
  sessionSecurity as security,
} from './conventions.ts';

const tags = ['channel'];
const READ_PROJECTIONS = ['reads'];

/** What readers do with posts: views, button clicks and the channel's read marker. */
export const interactionsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, store, waiter } = app.services;

  app.post(
    '/channel/:id/views',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'recordPostViews',
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
        operationId: 'clickPostButton',
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
        operationId: 'markChannelRead',
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
};
