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

  /** A promise the test settles. */
  const settledByHand = () => {
    let settle = (): void => undefined;
    const promise = new Promise<void>((done) => {
      settle = done;
    });
    return { promise, settle };
  };
  /** Lets every callback that is due run: what has not settled by then waits for something else. */
  const aTurnLater = () => new Promise((done) => setImmediate(done));

  it('waits for a loop that finishes, and says nothing', async () => {
    const log = logger();
    const loop = settledByHand();
    let stopped = false;
    const stopping = awaitStop(loop.promise, log, 'the loop', 5_000, new AbortController().signal).then(
      () => {
        stopped = true;
      },
    );
    await aTurnLater();
    expect(stopped).toBe(false);
    loop.settle();
    await stopping;
    expect(log.warnings).toEqual([]);
  });

  it('takes a loop that failed as stopped', async () => {
    const log = logger();
    await awaitStop(Promise.reject(new Error('the database went away')), log, 'the loop', 5_000);
    expect(log.warnings).toEqual([]);
  });

  it('gives up on a loop that never finishes when its grace is over, not before, and says so', async () => {
    const log = logger();
    const grace = new AbortController();
    let stopped = false;
    const stopping = awaitStop(new Promise(() => undefined), log, 'the stuck loop', 100, grace.signal).then(
      () => {
        stopped = true;
      },
    );
    await aTurnLater();
    expect(stopped).toBe(false);
    expect(log.warnings).toEqual([]);
    grace.abort();
    await stopping;
    expect(log.warnings).toEqual(['the stuck loop had not stopped; leaving it behind']);
  });

  it('ends the grace by itself when no signal is given', async () => {
    const log = logger();
    await awaitStop(new Promise(() => undefined), log, 'the stuck loop', 1);
    expect(log.warnings).toEqual(['the stuck loop had not stopped; leaving it behind']);
  });
});
