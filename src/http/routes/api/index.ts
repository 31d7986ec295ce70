import type { FastifyPluginAsync } from 'fastify';
import { identify, requireUser } from '../../plugins/auth.ts';
import { registerApiRateLimit } from '../../plugins/rate-limit.ts';
import { channelsRoutes } from './channels.ts';
import { commentActionsRoutes } from './comment-actions.ts';
import { commentImagesRoutes } from './comment-images.ts';
import { commentsRoutes } from './comments.ts';
import { complaintsRoutes } from './complaints.ts';
import { configRoutes } from './config.ts';
import { conversationsRoutes } from './conversations.ts';
import { csatRoutes } from './csat.ts';
import { devicesRoutes } from './devices.ts';
import { devtoolsRoutes } from './devtools.ts';
import { filesRoutes } from './files.ts';
import { interactionsRoutes } from './interactions.ts';
import { notificationSettingsRoutes } from './notification-settings.ts';
import { postMediaRoutes } from './post-media.ts';
import { postsRoutes } from './posts.ts';
import { reactionsRoutes } from './reactions.ts';
import { ticketsRoutes } from './tickets.ts';
import { unreadRoutes } from './unread.ts';

/**
 * Everything under /api: identity first (onRequest), then the rate limit keyed by it, then the 401 for
 * anonymous callers, both before the body is read (preParsing). So a flood of bad tokens is limited per
 * IP, and no body is parsed for a caller who will be refused.
 */
export const apiRoutes: FastifyPluginAsync = async (app) => {
  const { config, redis } = app.services;
  app.addHook('onRequest', identify);
  // The app is open while it polls: a chat or ticket push waits for a user seen here (decision 026).
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.method === 'GET' && request.userId !== null) app.services.push.presence.seen(request.userId);
    done();
  });
  // Both preParsing hooks of this scope, in the order added: the count first, then the 401.
  await registerApiRateLimit(app, { perMinute: config.API_RATE_LIMIT_PER_MINUTE, redis });
  app.addHook('preParsing', requireUser);

  await app.register(configRoutes);
  await app.register(notificationSettingsRoutes);
  await app.register(filesRoutes);
  await app.register(postsRoutes);
  await app.register(reactionsRoutes);
  await app.register(channelsRoutes);
  await app.register(interactionsRoutes);
  await app.register(postMediaRoutes);
  await app.register(commentsRoutes);
  await app.register(commentActionsRoutes);
  await app.register(commentImagesRoutes);
  await app.register(conversationsRoutes);
  await app.register(ticketsRoutes);
  await app.register(unreadRoutes);
  await app.register(csatRoutes);
  await app.register(devicesRoutes);
  await app.register(complaintsRoutes);
  if (config.ENABLE_DEVTOOLS && config.NODE_ENV !== 'production') await app.register(devtoolsRoutes);
};
