import { describe, expect, it } from 'vitest';
import { ProcessorError, retryAfterOf } from '../../src/processors/processor.ts';

describe('what a failed side effect asks of the backoff', () => {
  it("is the provider's Retry-After when the processor passed it on", () => {
    expect(retryAfterOf(new ProcessorError('429 from provider', { retryAfterMs: 5_000 }))).toBe(5_000);
  });

  it('is nothing for a processor error without one, or any other error', () => {
    expect(retryAfterOf(new ProcessorError('503 from provider'))).toBe(0);
    expect(retryAfterOf(new Error('socket hang up'))).toBe(0);
  });
});
