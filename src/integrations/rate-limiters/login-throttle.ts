import type { Redis } from 'ioredis';
import type { IRateLimiterOptions, RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { createLimiter } from './limiter.ts';

export interface LoginThrottleOptions {
  /** Failures from one client IP within the window that lock that IP. */
  readonly maxFailures: number;
  readonly windowSeconds: number;
  readonly lockSeconds: number;
  /** Shared counters for several replicas; in memory (this process only) without. */
  readonly redis?: Redis | undefined;
}

export interface LoginThrottle {
  /** Milliseconds before a login from this IP for this account may be tried; 0 when it may be now. */
  waitBefore(clientIp: string, account: string): Promise<number>;
  failed(clientIp: string, account: string): Promise<void>;
  succeeded(account: string): Promise<void>;
}

// One account attacked from many IPs: past the same number of failures, every further failure makes the
// account wait twice as long as the last (1 s, 2 s, 4 s, …) up to this cap. The cap keeps an attacker from
// locking the real admin out for long; 1 guess a minute keeps the attack useless.
const MAX_ACCOUNT_WAIT_SECONDS = 60;

const blockedFor = (res: RateLimiterRes | null, points: number): number =>
  // An expired record can outlive its expiry by a moment in memory; it blocks nothing.
  res !== null && res.consumedPoints > points && res.msBeforeNext > 0 ? res.msBeforeNext : 0;

/**
 * Login lockout (decision 012) on rate-limiter-flexible: per client IP, failures within a window lock
 * that IP; per account (the normalised email), failures from anywhere slow further attempts down. In
 * Redis with `redis` (falling back to memory while Redis is unreachable), in memory otherwise.
 */
export function loginThrottle(options: LoginThrottleOptions): LoginThrottle {
  const limiter = (opts: IRateLimiterOptions): RateLimiterAbstract => createLimiter(opts, options.redis);
  const { maxFailures } = options;
  const ipFailures = limiter({
    keyPrefix: 'login-ip',
    points: maxFailures,
    duration: options.windowSeconds,
  });
  const accountFailures = limiter({
    keyPrefix: 'login-account',
    points: maxFailures,
    duration: options.windowSeconds,
  });
  // Only ever blocked and read: a blocked key holds points + 1.
  const accountWait = limiter({ keyPrefix: 'login-account-wait', points: 1, duration: 1 });

  return {
    waitBefore: async (clientIp, account) => {
      const [ip, wait] = await Promise.all([ipFailures.get(clientIp), accountWait.get(account)]);
      return Math.max(blockedFor(ip, maxFailures), blockedFor(wait, 1));
    },
    failed: async (clientIp, account) => {
      const ip = await ipFailures.penalty(clientIp);
      if (ip.consumedPoints >= maxFailures) await ipFailures.block(clientIp, options.lockSeconds);
      const beyond = (await accountFailures.penalty(account)).consumedPoints - maxFailures;
      if (beyond >= 0) {
        await accountWait.block(account, Math.min(2 ** beyond, MAX_ACCOUNT_WAIT_SECONDS));
      }
    },
    succeeded: async (account) => {
      await Promise.all([accountFailures.delete(account), accountWait.delete(account)]);
    },
  };
}
