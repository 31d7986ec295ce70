import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { SharedHold } from './resilience.ts';

// Keeps the later of two instants: processes that met Intercom's 429 at nearly the same time agree.
const KEEP_LATER = `
local held = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > held then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1`;

/**
 * Intercom's 429 hold in Redis, so that every process waits for the reset one of them was told about
 * (they share one app-wide limit). A Redis that does not answer holds nothing beyond this process's own.
 */
export function redisHold(redis: Redis, key: string, logger: Logger, now = Date.now): SharedHold {
  return {
    async get() {
      try {
        return Number((await redis.get(key)) ?? 0) || 0;
      } catch {
        return 0;
      }
    },
    async set(untilMs) {
      const ttlMs = Math.max(1, Math.ceil(untilMs - now()));
      try {
        await redis.eval(KEEP_LATER, 1, key, String(untilMs), String(ttlMs));
      } catch (error) {
        logger.warn({ err: error }, 'intercom: the 429 hold is not shared, redis unavailable');
      }
    },
  };
}
