export interface RetryPolicy {
  /** Tries per item, the first included; the item is given up on after the last one fails. */
  readonly maxAttempts: number;
  /** The wait after the first failure; it doubles after each further one. */
  readonly baseDelayMs: number;
  /** The longest wait between two attempts (a provider's Retry-After may ask for longer). */
  readonly maxDelayMs: number;
}

/**
 * The wait after the `failedAttempt`-th failure: exponential, capped, with "equal jitter" (between half and
 * all of the step) so that loops failing on one provider outage do not all come back at the same instant.
 * What the provider asked for (its Retry-After, `askedMs`) wins when it is longer.
 */
export function retryDelayMs(
  failedAttempt: number,
  policy: RetryPolicy,
  askedMs = 0,
  random: () => number = Math.random,
): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failedAttempt - 1));
  const jittered = Math.round(step / 2 + (random() * step) / 2);
  return Math.max(jittered, askedMs);
}

export function validateRetryPolicy(policy: RetryPolicy): void {
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new Error('a retry policy needs at least one attempt');
  }
  if (policy.baseDelayMs < 0 || policy.maxDelayMs < policy.baseDelayMs) {
    throw new Error('retry delays must satisfy 0 <= baseDelayMs <= maxDelayMs');
  }
}
