import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKurrentDbEventStore } from '../../../src/events/store/kurrentdb.ts';
import type { EventStore } from '../../../src/events/store/port.ts';
import { createLogger } from '../../../src/http/logger.ts';
import { type KurrentDbDouble, startKurrentDbDouble } from '../../support/kurrentdb-double/index.ts';
import { collect, freshCategory, testEvent } from './contract.ts';

// The cluster faults a KurrentDB node answers with, injected by the protocol double: these test the
// adapter's handling of the answers, not a cluster's behaviour (test/support/kurrentdb-double/README.md).
const logger = createLogger('silent');
const FAST_RETRY = { retries: 4, initialDelayMs: 10, maxDelayMs: 50 };

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
    double.faults.notLeaderOnNextAppends(FAST_RETRY.retries + 1);
    await expect(store.append(stream, [testEvent('a')], 'no_stream')).rejects.toThrow();
    expect(await store.readStream(stream)).toEqual([]);
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
