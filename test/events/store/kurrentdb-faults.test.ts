import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKurrentDbEventStore } from '../../../src/events/store/kurrentdb.ts';
import { StoreClosedError } from '../../../src/events/store/kurrentdb-retry.ts';
import type { EventStore } from '../../../src/events/store/port.ts';
import { createLogger } from '../../../src/http/logger.ts';
import { type KurrentDbDouble, startKurrentDbDouble } from '../../support/kurrentdb-double/index.ts';
import { collect, freshCategory, testEvent } from './contract.ts';

// The cluster faults a KurrentDB node answers with, injected by the protocol double: these test the
// adapter's handling of the answers, not a cluster's behaviour (test/support/kurrentdb-double/README.md).
const logger = createLogger('silent');
const FAST_RETRY = { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 50 };

let double: KurrentDbDouble;
let store: EventStore;
beforeAll(async () => {
  double = await startKurrentDbDouble();
  store = createKurrentDbEventStore({
    connectionString: double.connectionString,
    logger,
    appendRetry: FAST_RETRY,
  });
});
afterEach(() => {
  // A failing test must not leave its faults armed for the next one.
  double.faults.clear();
});
afterAll(async () => {
  await store.close();
  await double.stop();
});

const types = async (stream: string) => (await store.readStream(stream)).map((e) => e.type);

/** Resolves once `done()` holds, looking every few milliseconds; fails after `timeoutMs`. */
async function eventually(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('kurrentdb adapter: appends during a leader change (protocol double)', () => {
  it('retries an append refused as not leader, and writes it once', async () => {
    const stream = `${freshCategory()}-1`;
    await store.append(stream, [testEvent('a')], 'no_stream');
    const refusedBefore = double.faults.refusedAppends;
    double.faults.notLeaderOnNextAppends(2);
    const result = await store.append(stream, [testEvent('b'), testEvent('c')], 0n);
    expect(result).toMatchObject({ nextRevision: 2n, written: true });
    expect(double.faults.refusedAppends - refusedBefore).toBe(2);
    expect(await types(stream)).toEqual(['a', 'b', 'c']);
  });

  it('retries an append refused as unavailable, with any revision, and writes it once', async () => {
    const stream = `${freshCategory()}-1`;
    double.faults.unavailableOnNextAppends(3);
    const result = await store.append(stream, [testEvent('a')], 'any');
    expect(result).toMatchObject({ nextRevision: 0n, written: true });
    expect(await types(stream)).toEqual(['a']);
  });

  it('never doubles an append whose answer was lost after the write', async () => {
    const exact = `${freshCategory()}-1`;
    await store.append(exact, [testEvent('a')], 'no_stream');
    const refusedBefore = double.faults.refusedAppends;
    double.faults.loseAnswerOfNextAppends(1);
    const retried = await store.append(exact, [testEvent('b'), testEvent('c')], 0n);
    // The retry found its first attempt's events where the expected revision put them.
    expect(retried).toMatchObject({ nextRevision: 2n, written: false });
    expect(await types(exact)).toEqual(['a', 'b', 'c']);
    expect(double.faults.refusedAppends - refusedBefore).toBe(1);

    const any = `${freshCategory()}-1`;
    double.faults.loseAnswerOfNextAppends(1);
    const first = testEvent('x');
    const again = await store.append(any, [first], 'any');
    // With any revision, the server's own event-id check answers the original result.
    expect(again.nextRevision).toBe(0n);
    expect((await store.readStream(any)).map((e) => e.id)).toEqual([first.id]);
  });

  it('gives up after its retries, leaving nothing written', async () => {
    const stream = `${freshCategory()}-1`;
    double.faults.notLeaderOnNextAppends(FAST_RETRY.maxAttempts);
    await expect(store.append(stream, [testEvent('a')], 'no_stream')).rejects.toThrow();
    expect(await store.readStream(stream)).toEqual([]);
  });

  it('ends an append waiting to be retried as soon as the store closes, writing nothing', async () => {
    // A wait of 5 to 10 s before the retry: only the close can end it sooner.
    const closing = createKurrentDbEventStore({
      connectionString: double.connectionString,
      logger,
      appendRetry: { maxAttempts: 3, baseDelayMs: 10_000, maxDelayMs: 10_000 },
    });
    const stream = `${freshCategory()}-1`;
    const refusedBefore = double.faults.refusedAppends;
    double.faults.unavailableOnNextAppends(1);
    const outcome = closing.append(stream, [testEvent('a')], 'no_stream').then(
      () => new Error('the append went through'),
      (error: unknown) => error,
    );
    await eventually(() => double.faults.refusedAppends > refusedBefore);
    const closedAt = Date.now();
    await closing.close();
    const error = await outcome;
    expect(Date.now() - closedAt).toBeLessThan(1_000);
    expect(error).toBeInstanceOf(StoreClosedError);
    expect(await types(stream)).toEqual([]);
  });

  it('waits out a slow node', async () => {
    const stream = `${freshCategory()}-1`;
    double.faults.setLatency(150);
    const started = Date.now();
    await store.append(stream, [testEvent('a')], 'no_stream');
    double.faults.setLatency(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(await types(stream)).toEqual(['a']);
  });
});

describe('kurrentdb adapter: subscriptions and discovery (protocol double)', () => {
  it('resumes a dropped subscription after the last delivered event, missing and repeating nothing', async () => {
    const category = freshCategory();
    const events = Array.from({ length: 12 }, (_, i) => testEvent(`e${i.toString()}`));
    await store.append(`${category}-1`, events.slice(0, 6), 'no_stream');
    const droppedBefore = double.faults.droppedSubscriptions;
    double.faults.dropSubscriptions(4);
    const received = collect(store, {
      after: null,
      categories: [category],
      until: (all) => all.length >= 12,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await store.append(`${category}-1`, events.slice(6), 5n);
    const all = await received;
    expect(all.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(double.faults.droppedSubscriptions - droppedBefore).toBe(1);
  });

  it('finds the leader through gossip for a +discover connection string', async () => {
    const discovering = createKurrentDbEventStore({
      connectionString: double.connectionString.replace('kurrentdb://', 'kurrentdb+discover://'),
      logger,
    });
    try {
      const stream = `${freshCategory()}-1`;
      await discovering.append(stream, [testEvent('a')], 'no_stream');
      expect((await discovering.readStream(stream)).map((e) => e.type)).toEqual(['a']);
    } finally {
      await discovering.close();
    }
  });
});

describe('kurrentdb adapter: gathering live events (protocol double)', () => {
  /** Follows one category from the start, keeping each delivered batch's ids and when it came. */
  function watch(category: string, options: { gatherMs: number; batchSize?: number }) {
    const controller = new AbortController();
    const batches: { ids: string[]; at: number }[] = [];
    const running = (async () => {
      const subscription = store.subscribe({
        after: null,
        categories: [category],
        ...options,
        signal: controller.signal,
      });
      for await (const batch of subscription) batches.push({ ids: batch.map((e) => e.id), at: Date.now() });
    })();
    const count = () => batches.reduce((sum, batch) => sum + batch.ids.length, 0);
    return {
      batches,
      received: (n: number) => eventually(() => count() >= n),
      stop: async () => {
        controller.abort();
        await running;
      },
    };
  }

  const ids = (events: readonly { id: string }[]) => events.map((e) => e.id);

  it('delivers events appended within gatherMs of the last delivery as one batch, no sooner', async () => {
    const category = freshCategory();
    const stream = `${category}-1`;
    const gatherMs = 1_000;
    const watching = watch(category, { gatherMs });
    try {
      const first = testEvent('first');
      await store.append(stream, [first], 'no_stream');
      await watching.received(1);
      // Three appends, each its own call, well within the second.
      const later = ['a', 'b', 'c'].map((type) => testEvent(type));
      for (const [i, event] of later.entries()) await store.append(stream, [event], BigInt(i));
      await watching.received(4);
      expect(watching.batches.map((b) => b.ids)).toEqual([[first.id], ids(later)]);
      const [one, two] = watching.batches;
      // Timers may fire a little late, never early; a little slack for the clock's granularity.
      expect((two?.at ?? 0) - (one?.at ?? 0)).toBeGreaterThanOrEqual(gatherMs - 20);
    } finally {
      await watching.stop();
    }
  });

  it('bounds a gathered batch by batchSize and delivers a full one without waiting out gatherMs', async () => {
    const category = freshCategory();
    const stream = `${category}-1`;
    const watching = watch(category, { gatherMs: 3_000, batchSize: 2 });
    try {
      const first = testEvent('first');
      await store.append(stream, [first], 'no_stream');
      await watching.received(1);
      const five = ['a', 'b', 'c', 'd', 'e'].map((type) => testEvent(type));
      await store.append(stream, five, 0n);
      await watching.received(6);
      const [one, two] = watching.batches;
      expect(two?.ids).toEqual(ids(five.slice(0, 2)));
      expect((two?.at ?? 0) - (one?.at ?? 0)).toBeLessThan(1_500);
      expect(watching.batches.every((b) => b.ids.length <= 2)).toBe(true);
      expect(watching.batches.flatMap((b) => b.ids)).toEqual(ids([first, ...five]));
    } finally {
      await watching.stop();
    }
  });

  it('with gatherMs 0, delivers a live event as soon as it comes', async () => {
    const category = freshCategory();
    const stream = `${category}-1`;
    const watching = watch(category, { gatherMs: 0 });
    try {
      const first = testEvent('first');
      await store.append(stream, [first], 'no_stream');
      await watching.received(1);
      const next = testEvent('next');
      await store.append(stream, [next], 0n);
      const appendedAt = Date.now();
      await watching.received(2);
      // Each appended after the previous delivery: separate batches whatever the gathering.
      expect(watching.batches.map((b) => b.ids)).toEqual([[first.id], [next.id]]);
      // The default gathering (25 ms) would be well within this; a long one would not.
      expect((watching.batches[1]?.at ?? 0) - appendedAt).toBeLessThan(500);
    } finally {
      await watching.stop();
    }
  });
});
