import { describe, expect, it } from 'vitest';
import { sleep } from '../src/abortable.ts';

describe('sleep', () => {
  // Both would outlive the test's timeout if the abort went unheard.
  it('resolves at once when its signal has already aborted', async () => {
    await expect(sleep(60_000, AbortSignal.abort())).resolves.toBeUndefined();
  });

  it('resolves when its signal aborts during the wait', async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
  });
});
