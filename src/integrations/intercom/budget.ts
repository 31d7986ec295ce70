import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { createLimiter } from '../rate-limiters/limiter.ts';
import { ProviderError } from './errors.ts';

export interface BudgetOptions {
  /** Calls allowed per window, across every replica that shares `redis`. */
  readonly perWindow: number;
  /** Intercom counts in 10-second windows. */
  readonly windowMs: number;
  /** How long one call may wait for a window to free up before it fails as `rate_limited`. */
  readonly maxWaitMs: number;
  readonly keyPrefix: string;
  readonly redis?: Redis | undefined;
  /**
   * How many processes share the budget: while Redis is unreachable each counts alone, and keeps to its
   * share (`perWindow / liveInstances()`), so that together they stay under Intercom's limit. Default 1.
   */
  readonly liveInstances?: () => number;
  readonly logger: Logger;
  /** The clock the windows are cut from (ms since the epoch). */
  readonly now: () => number;
  /** How a call waits for the next window. */
  readonly sleep: (ms: number) => Promise<void>;
}

export interface Budget {
  /** Takes one call from the budget, waiting up to `maxWaitMs` for the next window; else `rate_limited`. */
  take(method: string, route: string): Promise<void>;
}

/**
 * The app-wide budget of Intercom calls: at most `perWindow` in each window. Windows are aligned to the
 * wall clock (`floor(now / windowMs)`), like Intercom's, so a burst at the end of one of our windows and
 * the start of the next lands in two of theirs too. The counter of each window lives under its own key
 * (in Redis when given, through `createLimiter`, which falls back to this process's memory while Redis is
 * away, at this process's share of the budget); a key outlives its window and then expires.
 */
export function createBudget(options: BudgetOptions): Budget {
  const { perWindow, windowMs, maxWaitMs } = options;
  const limits = {
    points: perWindow,
    // Seconds, a whole number: long enough for the key to outlast its window.
    duration: Math.ceil(windowMs / 1000) * 2,
    keyPrefix: options.keyPrefix,
  };
  const alone = new RateLimiterMemory(limits);
  const limiter = createLimiter(limits, options.redis, alone);
  const share = () => Math.max(1, Math.floor(perWindow / Math.max(1, options.liveInstances?.() ?? 1)));

  return {
    async take(method, route) {
      const deadline = options.now() + maxWaitMs;
      for (;;) {
        const now = options.now();
        const window = Math.floor(now / windowMs);
        try {
          // Used only while Redis is away (or absent: then this process is alone and its share is all).
          alone.points = options.redis === undefined ? perWindow : share();
          await limiter.consume(String(window));
          return;
        } catch (error) {
          if (!(error instanceof RateLimiterRes)) {
            // The budget protects Intercom's limit, which has its own 429; failing open is safe.
            options.logger.warn({ err: error }, 'intercom budget unavailable; call sent uncounted');
            return;
          }
        }
        const waitMs = (window + 1) * windowMs - now;
        if (now + waitMs > deadline) {
          options.logger.warn({ method, route, retryAfterMs: waitMs }, 'intercom budget spent');
          throw new ProviderError({
            kind: 'rate_limited',
            reason: 'budget',
            method,
            route,
            retryAfterMs: waitMs,
          });
        }
        await options.sleep(waitMs);
      }
    },
  };
}
