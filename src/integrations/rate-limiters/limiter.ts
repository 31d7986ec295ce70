import type { Redis } from 'ioredis';
import {
  type IRateLimiterOptions,
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
} from 'rate-limiter-flexible';

/**
 * A rate-limiter-flexible limiter: in Redis when there is one, so every replica shares the counters,
 * falling back to this process's memory while Redis is unreachable; in memory otherwise.
 */
export function createLimiter(
  options: IRateLimiterOptions,
  redis: Redis | undefined,
  /** What counts while Redis is away (or without Redis): by default memory with the same limits. */
  alone: RateLimiterMemory = new RateLimiterMemory(options),
): RateLimiterAbstract {
  if (!redis) return alone;
  return new RateLimiterRedis({
    ...options,
    storeClient: redis,
    // While Redis is away, count in this process at once instead of waiting on a reconnect.
    rejectIfRedisNotReady: true,
    insuranceLimiter: alone,
  });
}
