import type { FastifyPluginAsync } from 'fastify';
import type { Redis } from 'ioredis';
import type { DatabasePool } from '../../../db/pool.ts';
import { identify, requireUser } from '../../plugins/auth.ts';
import { registerApiRateLimit } from '../../plugins/rate-limit.ts';
import { devtoolsRoutes } from './devtools.ts';
import { notificationSettingsRoutes } from './notification-settings.ts';

export interface ApiOptions {
  readonly pool: DatabasePool;
  readonly redis?: Redis | undefined;
  readonly rateLimitPerMinute: number;
  readonly devtools: { readonly enabled: boolean; readonly resetAll: boolean };
}

/**
 * Everything under /api: identity first (onRequest), then the rate limit keyed by it (preParsing),
 * then the 401 for anonymous callers (preValidation), so a flood of bad tokens is limited per IP and
 * a body is never parsed for a caller who will be refused.
 */
export const apiRoutes: FastifyPluginAsync<ApiOptions> = async (app, options) => {
  app.addHook('onRequest', identify);
  await registerApiRateLimit(app, { perMinute: options.rateLimitPerMinute, redis: options.redis });
  app.addHook('preValidation', requireUser);

  await app.register(notificationSettingsRoutes, { pool: options.pool });
  if (options.devtools.enabled) {
    await app.register(devtoolsRoutes, { pool: options.pool, resetAll: options.devtools.resetAll });
  }
};
