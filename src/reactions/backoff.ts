import { ReactionError } from './reaction.ts';

export interface RetryPolicy {
  /** Tries per event, the first included; the event is dead-lettered after the last one fails. */
  readonly maxAttempts: number;
  /** The wait after the first failure; it doubles after each further one. */
  readonly baseDelayMs: number;
  /** The longest wait between two attempts (a provider's Retry-After may ask for longer). */
  readonly maxDelayMs: number;
}

/**
 * Waits of about 1, 2, 4 and 8 s (with jitter, 7.5 to 15 s in all) before the fifth attempt fails for good.
 * Short on purpose: a reaction keeps log order, so while it retries one event every later one waits. A
 * longer outage leaves dead letters, which are counted and visible, rather than minutes of silence.
 */
export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 60_000 };

/**
 * The wait after the `failedAttempt`-th failure: exponential, capped, with "equal jitter" (between half and
 * all of the step) so that reactions failing on one provider outage do not all come back at the same
 * instant. A provider's own Retry-After wins when it asks for more.
 */
export function retryDelayMs(
  failedAttempt: number,
  policy: RetryPolicy,
  error: unknown,
  random: () => number = Math.random,
): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failedAttempt - 1));
  const jittered = Math.round(step / 2 + (random() * step) / 2);
  const asked = error instanceof ReactionError ? (error.retryAfterMs ?? 0) : 0;
  return Math.max(jittered, asked);
}

export function validateRetryPolicy(policy: RetryPolicy): void {
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new Error('a reaction needs at least one attempt per event');
  }
  if (policy.baseDelayMs < 0 || policy.maxDelayMs < policy.baseDelayMs) {
    throw new Error('retry delays must satisfy 0 <= baseDelayMs <= maxDelayMs');
  }
}
