import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { Position, RecordedEvent } from '../../../src/events/envelope.ts';
import { createKurrentDbEventStore } from '../../../src/events/store/kurrentdb.ts';
import {
  idempotencyWindow,
  storedBatch,
  type StoredRef,
} from '../../../src/events/store/kurrentdb-append.ts';
import {
  followLog,
  resubscribeDelayMs,
  type FollowOptions,
} from '../../../src/events/store/kurrentdb-follow.ts';
import { isAfter, logFilter, toStreamState } from '../../../src/events/store/kurrentdb-records.ts';
import { createDataKeys } from '../../../src/events/store/data-keys.ts';
import type { EventStore } from '../../../src/events/store/port.ts';
import { withSealing } from '../../../src/events/store/sealing.ts';
import { createUpcast } from '../../../src/events/upcasting.ts';
import { createLogger } from '../../../src/http/logger.ts';
import { masterKey } from '../../../src/lib/sealed-box.ts';
import { createTestDatabase } from '../../support/database.ts';
import { startTestKurrentDb, type TestKurrentDb } from '../../support/kurrentdb.ts';
import { describeEventStoreContract, freshCategory, testEvent } from './contract.ts';

const logger = createLogger('silent');

let server: TestKurrentDb | null = null;
/** Why there is no server although REQUIRE_KURRENTDB=1 asks for one. */
let missing: Error | undefined;
// Longer than the hook timeout of vitest.config.ts: the first run pulls the image. The error is kept
// for the tests to throw: a failed hook only marks its tests skipped, which a summary would not show.
beforeAll(async () => {
  try {
    server = await startTestKurrentDb('kurrentdb event store');
  } catch (error) {
    missing = error instanceof Error ? error : new Error(String(error));
  }
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

const openStore = (connectionString: string, upcast?: Parameters<typeof createUpcast>[0]) =>
  createKurrentDbEventStore({
    connectionString,
    logger,
    ...(upcast ? { upcast: createUpcast(upcast) } : {}),
  });

// Against a real server, or else the protocol double (test/support/kurrentdb-double): never skipped.
describeEventStoreContract('kurrentdb', async () => {
  if (missing) throw missing;
  if (!server) return null;
  const store = openStore(server.connectionString);
  return { store, cleanup: () => store.close() };
});

// The service runs the store inside the sealing decorator; its data keys live in PostgreSQL.
describeEventStoreContract('sealing around kurrentdb', async () => {
  if (missing) throw missing;
  if (!server) return null;
  const db = await createTestDatabase();
  const keys = createDataKeys({
    connectionString: db.url,
    master: masterKey('kurrentdb-sealing-test-master-secret-0123456789'),
  });
  const store = withSealing(openStore(server.connectionString), keys);
  return {
    store,
    cleanup: async () => {
      await store.close();
      await db.drop();
    },
  };
});

/** A test against the server, skipped (visibly) like the contract's when there is none. */
function withServer(title: string, body: (connectionString: string) => Promise<void>): void {
  it(title, async (context: TestContext) => {
    if (missing) throw missing;
    if (!server) {
      context.skip();
      return;
    }
    await body(server.connectionString);
  });
}

describe('kurrentdb event store: beyond the contract', () => {
  const withStore = async (connectionString: string, body: (store: EventStore) => Promise<void>) => {
    const store = openStore(connectionString);
    try {
      await body(store);
    } finally {
      await store.close();
    }
  };

  withServer('a retry that re-read the stream first writes nothing and answers the first result', (url) =>
    withStore(url, async (store) => {
      const stream = `${freshCategory()}-1`;
      await store.append(stream, [testEvent('before')], 'no_stream');
      const events = [testEvent('a'), testEvent('b')];
      const first = await store.append(stream, events, 0n);
      // What the command handler sends after re-reading: the revision its own first attempt produced.
      const retry = await store.append(stream, events, first.nextRevision);
      expect(retry).toEqual({ ...first, written: false });
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['before', 'a', 'b']);
    }),
  );

  withServer('refuses a batch of which only some ids are stored already, and writes none of it', (url) =>
    withStore(url, async (store) => {
      const stream = `${freshCategory()}-1`;
      const a = testEvent('a');
      await store.append(stream, [a], 'no_stream');
      await expect(store.append(stream, [a, testEvent('b')], 0n)).rejects.toThrow(/stored already/);
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['a']);
    }),
  );

  withServer('upcasts stored old versions on read', async (url) => {
    const store = openStore(url, [
      { type: 'greeted', fromVersion: 1, up: (data) => ({ ...(data as object), language: 'en' }) },
    ]);
    try {
      const stream = `${freshCategory()}-1`;
      await store.append(stream, [testEvent('greeted', { name: 'Ada' })], 'no_stream');
      const [read] = await store.readStream(stream);
      expect(read?.data).toEqual({ name: 'Ada', language: 'en' });
      expect(read?.metadata.schemaVersion).toBe(2);
    } finally {
      await store.close();
    }
  });

  withServer('answers ping, and close() ends a running subscription', async (url) => {
    const store = openStore(url);
    expect(await store.ping()).toBe(true);
    const never = new AbortController();
    let batches = 0;
    const iteration = (async () => {
      const options = { after: null, categories: [freshCategory()], signal: never.signal };
      for await (const batch of store.subscribe(options)) batches += batch.length > 0 ? 1 : 0;
    })();
    await new Promise((r) => setTimeout(r, 300));
    await store.close();
    await iteration;
    expect(batches).toBe(0);
  });
});

describe('kurrentdb event store: helpers', () => {
  it('maps our expected revision to the client stream state', () => {
    expect(toStreamState('no_stream')).toBe('no_stream');
    expect(toStreamState('any')).toBe('any');
    expect(toStreamState(7n)).toBe(7n);
  });

  it('filters on stream-name prefixes ending in a dash, or leaves out system events', () => {
    const byCategory = logFilter(['channel', 'comment']);
    expect(byCategory).toMatchObject({ filterOn: 'streamName', prefixes: ['channel-', 'comment-'] });
    for (const none of [undefined, []]) {
      const filter = logFilter(none);
      expect(filter.filterOn).toBe('eventType');
      const regex = new RegExp('regex' in filter ? filter.regex : 'no regex');
      expect(regex.test('$metadata')).toBe(false);
      expect(regex.test('postPublished')).toBe(true);
    }
  });

  it('checks the revisions right after and right up to the expected one', () => {
    expect(idempotencyWindow('no_stream', 2)).toEqual({ fromRevision: 0n, maxCount: 2 });
    expect(idempotencyWindow(0n, 2)).toEqual({ fromRevision: 0n, maxCount: 3 });
    expect(idempotencyWindow(5n, 2)).toEqual({ fromRevision: 4n, maxCount: 4 });
    expect(idempotencyWindow(5n, 1)).toEqual({ fromRevision: 5n, maxCount: 2 });
  });

  it('finds a stored batch only when all its ids stand in order', () => {
    const stored: StoredRef[] = ['x', 'A', 'b', 'y'].map((id, i) => ({
      id,
      revision: BigInt(i),
      position: { commit: BigInt(i * 10), prepare: BigInt(i * 10) },
    }));
    expect(storedBatch(stored, ['a', 'B'])).toBe(stored[2]);
    expect(storedBatch(stored, ['z'])).toBe('none');
    expect(storedBatch(stored, ['a', 'z'])).toBe('some');
    expect(storedBatch(stored, ['z', 'b'])).toBe('some');
    expect(storedBatch(stored, ['b', 'a'])).toBe('some');
    expect(storedBatch(stored, ['y', 'z'])).toBe('some');
  });

  it('orders positions by commit, then prepare; no position is before all', () => {
    const at = (commit: bigint, prepare: bigint): Position => ({ commit, prepare });
    expect(isAfter(at(0n, 0n), null)).toBe(true);
    expect(isAfter(at(5n, 5n), at(5n, 5n))).toBe(false);
    expect(isAfter(at(5n, 6n), at(5n, 5n))).toBe(true);
    expect(isAfter(at(4n, 9n), at(5n, 0n))).toBe(false);
  });

  it('doubles the resubscribe delay up to its ceiling, jittered down to half of each step', () => {
    const policy = { baseDelayMs: 200, maxDelayMs: 1_000 };
    const steps = [200, 400, 800, 1_000, 1_000];
    steps.forEach((step, i) => {
      const delay = resubscribeDelayMs(i + 1, policy);
      expect(delay).toBeGreaterThanOrEqual(step / 2);
      expect(delay).toBeLessThanOrEqual(step);
    });
  });
});

describe('kurrentdb event store: the subscription loop', () => {
  interface Item {
    readonly event: RecordedEvent | undefined;
  }

  const recorded = (n: number): RecordedEvent => ({
    id: `e${n}`,
    type: 'e',
    data: { n },
    metadata: testEvent('e').metadata,
    streamName: 'c-1',
    streamRevision: BigInt(n),
    position: { commit: BigInt(n * 10), prepare: BigInt(n * 10) },
    recordedAt: new Date(0),
  });

  /** Stands in for the client's subscription: a Readable of resolved events with unsubscribe(). */
  function fakeSubscription(events: readonly (RecordedEvent | undefined)[]) {
    const stream = new PassThrough({ objectMode: true });
    const state = { unsubscribed: false };
    for (const event of events) stream.write({ event } satisfies Item);
    const source = Object.assign(stream, {
      unsubscribe: async () => {
        state.unsubscribed = true;
      },
    });
    return { source, state };
  }

  function follow(
    sources: ReturnType<typeof fakeSubscription>[],
    overrides: Partial<FollowOptions<Item>> = {},
  ) {
    const opened: (Position | null)[] = [];
    const controller = new AbortController();
    const iterable = followLog<Item>({
      open: (after) => {
        opened.push(after);
        const next = sources[opened.length - 1];
        if (!next) throw new Error('no more subscriptions in this test');
        return next.source;
      },
      toRecorded: (item) => item.event ?? null,
      after: null,
      batchSize: 500,
      gatherMs: 0,
      signal: controller.signal,
      logger,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      ...overrides,
    });
    return { iterable, opened, controller };
  }

  const numbers = (batch: readonly RecordedEvent[]) => batch.map((e) => e.streamRevision);

  it('delivers what is buffered, up to a batch at a time, in order', async () => {
    const sub = fakeSubscription([1, 2, 3, 4, 5].map(recorded));
    const { iterable } = follow([sub], { batchSize: 2 });
    const batches: bigint[][] = [];
    for await (const batch of iterable) {
      batches.push(numbers(batch));
      if (batches.flat().length === 5) break;
    }
    expect(batches).toEqual([[1n, 2n], [3n, 4n], [5n]]);
    expect(sub.state.unsubscribed).toBe(true);
  });

  it('gathers what comes within gatherMs of the last delivery into one batch', async () => {
    const sub = fakeSubscription([recorded(1)]);
    const { iterable } = follow([sub], { gatherMs: 200 });
    const batches: { numbers: bigint[]; at: number }[] = [];
    for await (const batch of iterable) {
      batches.push({ numbers: numbers(batch), at: Date.now() });
      if (batches.length === 1) {
        // Three events pushed one by one, 10 ms apart, all within the gathering.
        for (const n of [2, 3, 4]) {
          setTimeout(() => sub.source.write({ event: recorded(n) } satisfies Item), (n - 1) * 10);
        }
      }
      if (batches.flatMap((b) => b.numbers).length === 4) break;
    }
    expect(batches.map((b) => b.numbers)).toEqual([[1n], [2n, 3n, 4n]]);
    expect((batches[1]?.at ?? 0) - (batches[0]?.at ?? 0)).toBeGreaterThanOrEqual(180);
  });

  it('skips what is at or before `after`, and what is not delivered', async () => {
    const sub = fakeSubscription([recorded(1), recorded(2), undefined, recorded(2), recorded(3)]);
    const { iterable } = follow([sub], { after: recorded(1).position });
    for await (const batch of iterable) {
      expect(numbers(batch)).toEqual([2n, 3n]);
      break;
    }
  });

  it('resubscribes after a drop, after the last delivered event, delivering it only once', async () => {
    const first = fakeSubscription([1, 2].map(recorded));
    const second = fakeSubscription([2, 3].map(recorded));
    const { iterable, opened } = follow([first, second]);
    const seen: bigint[] = [];
    for await (const batch of iterable) {
      seen.push(...numbers(batch));
      // The client reports a lost connection as an 'error' event on the subscription.
      if (seen.length === 2) first.source.emit('error', new Error('14 UNAVAILABLE: connection lost'));
      if (seen.length === 3) break;
    }
    expect(seen).toEqual([1n, 2n, 3n]);
    expect(opened).toEqual([null, recorded(2).position]);
    expect(first.state.unsubscribed).toBe(true);
  });

  it('resubscribes when the server ends the subscription', async () => {
    const first = fakeSubscription([recorded(1)]);
    first.source.end();
    const second = fakeSubscription([recorded(2)]);
    const { iterable, opened } = follow([first, second]);
    const seen: bigint[] = [];
    for await (const batch of iterable) {
      seen.push(...numbers(batch));
      if (seen.length === 2) break;
    }
    expect(seen).toEqual([1n, 2n]);
    expect(opened).toEqual([null, recorded(1).position]);
  });

  it('returns when the signal aborts, unsubscribing', async () => {
    const sub = fakeSubscription([recorded(1)]);
    const { iterable, opened, controller } = follow([sub]);
    const seen: bigint[] = [];
    for await (const batch of iterable) {
      seen.push(...numbers(batch));
      setTimeout(() => {
        controller.abort();
      }, 20);
    }
    expect(seen).toEqual([1n]);
    expect(opened).toHaveLength(1);
    expect(sub.state.unsubscribed).toBe(true);
  });

  it('lets an event it cannot read fail the iteration instead of resubscribing forever', async () => {
    const sub = fakeSubscription([recorded(1)]);
    const { iterable, opened } = follow([sub], {
      toRecorded: () => {
        throw new Error('event e1 in c-1 is not JSON');
      },
    });
    await expect(
      (async () => {
        for await (const batch of iterable) expect(batch).toBeUndefined();
      })(),
    ).rejects.toThrow(/not JSON/);
    expect(opened).toHaveLength(1);
    expect(sub.state.unsubscribed).toBe(true);
  });
});
