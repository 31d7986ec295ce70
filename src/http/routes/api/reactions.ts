import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { react } from '../../../commands/reactions.ts';
import { findChannel } from '../../../queries/channels.ts';
import { postReactions, publishedAtOf } from '../../../queries/feed.ts';
import { userCommandContext } from '../../command-context.ts';
import { userOf } from '../../plugins/auth.ts';
import { problemSchema } from '../../problem.ts';
import { reactionsSchema } from '../../views/api/posts.ts';
import { clientErrors as errors, postParams, sessionSecurity as security } from './conventions.ts';
import { idText } from '../../../lib/text-rules.ts';

const reactionParams = postParams.extend({ emoji: idText({ max: 32 }) });
const tags = ['channel'];
const REACTION_PROJECTIONS = ['reactions'];

/** A reader's emoji reactions on a post. */
export const reactionsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, store, waiter } = app.services;

  for (const [method, type] of [
    ['PUT', 'add'],
    ['DELETE', 'remove'],
  ] as const) {
    app.route({
      method,
      url: '/channel/:id/posts/:postId/reactions/:emoji',
      schema: {
        operationId: type === 'add' ? 'addReaction' : 'removeReaction',
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
};
