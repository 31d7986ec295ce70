import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * One shared connection for counters and cache invalidation. Commands fail fast while Redis is
 * down (no offline queue growing without bound); callers decide whether to fail open.
 */
export function createRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    connectTimeout: 2_000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    lazyConnect: false,
  });
  let lastError = '';
  redis.on('error', (error: Error) => {
    // ioredis reports every reconnect attempt; log each distinct failure once.
    if (error.message !== lastError) logger.warn({ err: error }, 'redis error');
    lastError = error.message;
  });
  redis.on('ready', () => {
    lastError = '';
  });
  return redis;
}
