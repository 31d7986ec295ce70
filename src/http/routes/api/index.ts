import type { FastifyPluginAsync } from 'fastify';
import type { Redis } from 'ioredis';
import type { DatabasePool } from '../../../db/pool.ts';
import type { EventStore } from '../../../events/store/port.ts';
import type { ObjectStorage } from '../../../integrations/storage/port.ts';
import type { ProjectionWaiter } from '../../../projections/progress.ts';
import type { ReadVersions } from '../../../projections/read-version.ts';
import { identify, requireUser } from '../../plugins/auth.ts';
import { registerApiRateLimit } from '../../plugins/rate-limit.ts';
import type { ChatDeps } from '../../../chat/conversations.ts';
import type { SupportServices } from '../../../wiring/support.ts';
import { channelRoutes } from './channel.ts';
import { conversationRoutes } from './conversations.ts';
import { ticketRoutes } from './tickets.ts';
import { unreadRoutes } from './unread.ts';
import { commentRoutes } from './comments.ts';
import { slowMode } from '../../../integrations/rate-limiters/slow-mode.ts';
import { type ClientConfig, configRoutes } from './config.ts';
import { devicesRoutes } from './devices.ts';
import { devtoolsRoutes } from './devtools.ts';
import type { UploadCaps } from '../../../files/inspect.ts';
import { filesRoutes } from './files.ts';
import { notificationSettingsRoutes } from './notification-settings.ts';

export interface ApiOptions {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly waiter: ProjectionWaiter;
  readonly redis?: Redis | undefined;
  readonly rateLimitPerMinute: number;
  readonly client: ClientConfig;
  readonly storage: ObjectStorage;
  readonly uploadCaps: UploadCaps;
  readonly feedPollMs: number;
  readonly versions: ReadVersions;
  /** Keys the hash that records a rejected comment. */
  readonly commentHashKey: string;
  readonly devtools: { readonly enabled: boolean; readonly resetAll: boolean };
  /** The support chat's reads and writes. */
  readonly chat: ChatDeps;
  /** For the devtools that drive the sandbox. */
  readonly support: SupportServices;
}

/**
 * Everything under /api: identity first (onRequest), then the rate limit keyed by it, then the 401 for
 * anonymous callers, both before the body is read (preParsing). So a flood of bad tokens is limited per
 * IP, and no body is parsed for a caller who will be refused.
 */
export const apiRoutes: FastifyPluginAsync<ApiOptions> = async (app, options) => {
  app.addHook('onRequest', identify);
  await registerApiRateLimit(app, { perMinute: options.rateLimitPerMinute, redis: options.redis });
  // The limiter adds a route-level preParsing hook from its own onRoute hook; this one runs after it,
  // so the 401 comes after the count. (An instance-level preParsing hook would run before the limiter.)
  app.addHook('onRoute', (route) => {
    const before = route.preParsing === undefined ? [] : [route.preParsing].flat();
    route.preParsing = [...before, requireUser];
  });

  await app.register(configRoutes, { pool: options.pool, client: options.client });
  await app.register(notificationSettingsRoutes, { pool: options.pool });
  await app.register(filesRoutes, { pool: options.pool, storage: options.storage, caps: options.uploadCaps });
  await app.register(channelRoutes, {
    pool: options.pool,
    store: options.store,
    waiter: options.waiter,
    storage: options.storage,
    feedPollMs: options.feedPollMs,
    versions: options.versions,
  });
  await app.register(commentRoutes, {
    pool: options.pool,
    store: options.store,
    waiter: options.waiter,
    storage: options.storage,
    versions: options.versions,
    slowMode: slowMode(options.redis),
    hashKey: options.commentHashKey,
    maxImageBytes: options.uploadCaps.image,
    commentMaxLength: options.client.limits.commentMaxLength,
    pollMs: options.client.poll.commentsMs,
  });
  const chatPollMs = options.client.poll.chatMs;
  await app.register(conversationRoutes, { chat: options.chat, pollMs: chatPollMs });
  await app.register(ticketRoutes, { chat: options.chat, pollMs: chatPollMs });
  await app.register(unreadRoutes, { chat: options.chat, pollMs: chatPollMs });
  await app.register(devicesRoutes, { pool: options.pool, store: options.store, waiter: options.waiter });
  if (options.devtools.enabled) {
    await app.register(devtoolsRoutes, {
      pool: options.pool,
      store: options.store,
      waiter: options.waiter,
      support: options.support,
      resetAll: options.devtools.resetAll,
    });
  }
};
