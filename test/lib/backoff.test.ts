import { describe, expect, it } from 'vitest';
import { retryDelayMs, type RetryPolicy, validateRetryPolicy } from '../../src/lib/backoff.ts';

const policy: RetryPolicy = { maxAttempts: 8, baseDelayMs: 100, maxDelayMs: 1_000 };
const lowest = () => 0;
const highest = () => 1;

describe('retry delays', () => {
  it('double after each failure, between half and all of the step', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, policy, 0, highest))).toEqual([100, 200, 400, 800]);
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, policy, 0, lowest))).toEqual([50, 100, 200, 400]);
  });

  it('stop growing at the maximum', () => {
    expect(retryDelayMs(5, policy, 0, highest)).toBe(1_000);
    expect(retryDelayMs(40, policy, 0, highest)).toBe(1_000);
  });

  it("wait at least as long as the provider's Retry-After asks, even past the maximum", () => {
    expect(retryDelayMs(1, policy, 5_000, highest)).toBe(5_000);
    expect(retryDelayMs(3, policy, 10, highest)).toBe(400);
  });

  it('refuse a policy that cannot work', () => {
    expect(() => {
      validateRetryPolicy({ ...policy, maxAttempts: 0 });
    }).toThrow();
    expect(() => {
      validateRetryPolicy({ ...policy, maxDelayMs: 10 });
    }).toThrow();
    expect(() => {
      validateRetryPolicy(policy);
    }).not.toThrow();
  });
});
