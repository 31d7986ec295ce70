import type { Redis } from 'ioredis';
import { BurstyRateLimiter, RateLimiterRes } from 'rate-limiter-flexible';

interface Limiter {
  consume(key: string): Promise<unknown>;
}
import { createLimiter } from './limiter.ts';

/** A channel's slow mode: `burst` comments at once, then one per `intervalSeconds`. */
export interface CommentRate {
  readonly intervalSeconds: number;
  readonly burst: number;
}

export interface SlowMode {
  /** Takes one comment from the user's allowance in the channel: 0 when granted, else ms to wait. */
  take(channelId: string, userId: string, rate: CommentRate): Promise<number>;
}

/**
 * Per user and channel, on rate-limiter-flexible's bursty limiter: a steady limiter of one comment per
 * interval, and behind it a burst limiter of `burst - 1` more per `burst` intervals, drawn on only
 * when the steady one is spent. So a quiet user may post `burst` comments at once, and a sustained
 * poster gets one per interval. The limiters are keyed by the rate too, so a changed setting starts
 * afresh rather than reading counters made for another window.
 */
export function slowMode(redis: Redis | undefined): SlowMode {
  const limiters = new Map<string, Limiter>();
  const limiterFor = ({ intervalSeconds, burst }: CommentRate): Limiter => {
    const key = `${intervalSeconds}x${burst}`;
    let found = limiters.get(key);
    if (!found) {
      const steady = createLimiter(
        { keyPrefix: `comment-rate:${key}`, points: 1, duration: intervalSeconds },
        redis,
      );
      found =
        burst > 1
          ? new BurstyRateLimiter(
              steady,
              createLimiter(
                { keyPrefix: `comment-burst:${key}`, points: burst - 1, duration: intervalSeconds * burst },
                redis,
              ),
            )
          : steady;
      limiters.set(key, found);
    }
    return found;
  };
  return {
    async take(channelId, userId, rate) {
      try {
        await limiterFor(rate).consume(`${channelId}:${userId}`);
        return 0;
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes) return Math.max(refusal.msBeforeNext, 1);
        throw refusal;
      }
    },
  };
}
