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

/** A login attempt the throttle let through: its password may be checked now, and its outcome told. */
export interface AdmittedAttempt {
  readonly admitted: true;
  failed(): Promise<void>;
  succeeded(): Promise<void>;
  /** The check could not be made (an error, not a wrong password): the attempt counts for nothing. */
  abandoned(): Promise<void>;
}

export type LoginAdmission = AdmittedAttempt | { readonly admitted: false; readonly retryAfterMs: number };

export interface LoginThrottle {
  /**
   * Counts an attempt from this IP for this account before its password is checked, atomically, so a
   * burst cannot slip past the limits while the first checks are still running.
   */
  admit(clientIp: string, account: string): Promise<LoginAdmission>;
}

// One account attacked from many IPs: past the same number of failures, every further failure makes the
// account wait twice as long as the last (1 s, 2 s, 4 s, …) up to this cap. The cap keeps an attacker from
// locking the real admin out for long; 1 guess a minute keeps the attack useless.
const MAX_ACCOUNT_WAIT_SECONDS = 60;
// What a refused attempt is told while another attempt on the same account is being checked.
const TURN_TAKEN_RETRY_MS = 1_000;

const blockedFor = (res: RateLimiterRes | null, points: number): number =>
  // An expired record can outlive its expiry by a moment in memory; it blocks nothing.
  res !== null && res.consumedPoints > points && res.msBeforeNext > 0 ? res.msBeforeNext : 0;

/**
 * Returns one point taken earlier. Should the key have expired or been cleared since, the point went with
 * it, and the reward made a fresh key below zero, which would hand out a free attempt: that is undone.
 */
async function giveBack(limiter: RateLimiterAbstract, key: string): Promise<void> {
  if ((await limiter.reward(key)).consumedPoints < 0) await limiter.penalty(key);
}

/**
 * Login lockout (decision 012) on rate-limiter-flexible, in Redis with `redis` (falling back to memory
 * while Redis is unreachable), in memory otherwise. Every counter is taken before the password is
 * checked (one atomic increment each), and given back when the attempt turns out not to be a failure:
 * - per client IP, attempts in flight plus failures within the window: at `maxFailures` none more is let
 *   through, and the failure that makes `maxFailures` locks the IP;
 * - per account (the normalised email), the same count from every IP: past it, one attempt at a time
 *   (the turn), and only once the wait set by the last failure is over.
 */
export function loginThrottle(options: LoginThrottleOptions): LoginThrottle {
  const limiter = (opts: IRateLimiterOptions): RateLimiterAbstract => createLimiter(opts, options.redis);
  const { maxFailures, windowSeconds } = options;
  // Attempts count those in flight and the failures; failures alone set the lock and the waits.
  const counter = (keyPrefix: string) => limiter({ keyPrefix, points: maxFailures, duration: windowSeconds });
  const ipAttempts = counter('login-ip');
  const ipFailures = counter('login-ip-failures');
  const accountAttempts = counter('login-account');
  const accountFailures = counter('login-account-failures');
  // Only ever blocked and read: a blocked key holds points + 1.
  const accountWait = limiter({ keyPrefix: 'login-account-wait', points: 1, duration: 1 });
  // Held by the one attempt past the free ones that is being checked; it expires on its own should the
  // replica holding it die.
  const accountTurn = limiter({
    keyPrefix: 'login-account-turn',
    points: 1,
    duration: MAX_ACCOUNT_WAIT_SECONDS,
  });

  // Refused takers are not given back: the holder's delete clears them with its own.
  const takeTurn = async (account: string): Promise<boolean> =>
    (await accountTurn.penalty(account)).consumedPoints === 1;

  return {
    admit: async (clientIp, account) => {
      const ip = await ipAttempts.penalty(clientIp);
      if (ip.consumedPoints > maxFailures) {
        await giveBack(ipAttempts, clientIp);
        return { admitted: false, retryAfterMs: Math.max(ip.msBeforeNext, 1) };
      }
      const attempts = (await accountAttempts.penalty(account)).consumedPoints;
      const needsTurn = attempts > maxFailures;
      let hasTurn = false;
      const withdraw = async (): Promise<void> => {
        await Promise.all([
          giveBack(ipAttempts, clientIp),
          giveBack(accountAttempts, account),
          hasTurn ? accountTurn.delete(account) : null,
        ]);
      };
      if (needsTurn) {
        hasTurn = await takeTurn(account);
        if (!hasTurn) {
          await withdraw();
          return { admitted: false, retryAfterMs: TURN_TAKEN_RETRY_MS };
        }
      }
      // Read after taking the turn: the attempt before sets its wait before it gives the turn back.
      const wait = blockedFor(await accountWait.get(account), 1);
      if (wait > 0) {
        await withdraw();
        return { admitted: false, retryAfterMs: wait };
      }
      return {
        admitted: true,
        failed: async () => {
          const [ipFailed, accountFailed] = await Promise.all([
            ipFailures.penalty(clientIp),
            accountFailures.penalty(account),
          ]);
          if (ipFailed.consumedPoints >= maxFailures) {
            await ipAttempts.block(clientIp, options.lockSeconds);
          }
          const beyond = accountFailed.consumedPoints - maxFailures;
          if (beyond >= 0) {
            await accountWait.block(account, Math.min(2 ** beyond, MAX_ACCOUNT_WAIT_SECONDS));
          }
          if (hasTurn) await accountTurn.delete(account);
        },
        // A success is no failure: the IP's attempt is given back, and the account starts afresh.
        succeeded: async () => {
          await Promise.all([
            giveBack(ipAttempts, clientIp),
            accountAttempts.delete(account),
            accountFailures.delete(account),
            accountWait.delete(account),
            accountTurn.delete(account),
          ]);
        },
        abandoned: withdraw,
      };
    },
  };
}
