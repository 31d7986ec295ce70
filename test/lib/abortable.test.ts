import { describe, expect, it } from 'vitest';
import { awaitStop, sleep } from '../../src/lib/abortable.ts';

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

describe('awaitStop', () => {
  const logger = () => {
    const warnings: string[] = [];
    return { warnings, warn: (_: unknown, message: string) => void warnings.push(message) };
  };

  it('waits for a loop that finishes, and says nothing', async () => {
    const log = logger();
    let finished = false;
    const loop = sleep(50, new AbortController().signal).then(() => {
      finished = true;
    });
    await awaitStop(loop, log, 'the loop', 5_000);
    expect(finished).toBe(true);
    expect(log.warnings).toEqual([]);
  });

  it('takes a loop that failed as stopped', async () => {
    const log = logger();
    await awaitStop(Promise.reject(new Error('the database went away')), log, 'the loop', 5_000);
    expect(log.warnings).toEqual([]);
  });

  it('gives up on a loop that never finishes after its grace, and says so', async () => {
    const log = logger();
    const started = Date.now();
    await awaitStop(new Promise(() => undefined), log, 'the stuck loop', 100);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(log.warnings).toEqual(['the stuck loop had not stopped; leaving it behind']);
  });
});
