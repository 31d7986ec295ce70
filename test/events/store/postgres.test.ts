import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createPostgresEventStore, notifiedCategories } from '../../../src/events/store/postgres.ts';
import {
  type AppendResult,
  type EventStore,
  WrongExpectedRevisionError,
} from '../../../src/events/store/port.ts';
import { createUpcast } from '../../../src/events/upcasting.ts';
import { createLogger } from '../../../src/http/logger.ts';
import { createTestDatabase, useTestDatabase } from '../../support/database.ts';
import { waitUntil } from '../../support/eventually.ts';
import { startStatementCounter } from '../../support/statement-counter.ts';
import { collect, describeEventStoreContract, freshCategory, testEvent } from './contract.ts';

const logger = createLogger('silent');

/** A subscription of `store` to `category` from the start, whose batches land in `received`. */
function follow(store: EventStore, category: string) {
  const controller = new AbortController();
  const received: string[] = [];
  const done = (async () => {
    const subscription = store.subscribe({
      after: null,
      categories: [category],
      signal: controller.signal,
    });
    for await (const batch of subscription) received.push(...batch.map((e) => e.type));
  })();
  return {
    received,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

describeEventStoreContract('postgres', async () => {
  const db = await createTestDatabase();
  const store = createPostgresEventStore({ connectionString: db.url, logger, recheckIntervalMs: 100 });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await db.drop();
    },
  };
});

describe('postgres event store: ordering under transactions that commit out of order', () => {
  const db = useTestDatabase();

  /** Appends inside a transaction that stays open for `holdMs` before it commits. */
  async function appendHeldOpen(stream: string, type: string, holdMs: number): Promise<void> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query('BEGIN');
      const e = testEvent(type);
      await client.query(
        'SELECT * FROM append_to_stream($1, -2, $2::uuid[], $3::text[], $4::jsonb[], $5::jsonb[])',
        [stream, [e.id], [e.type], [JSON.stringify(e.data)], [JSON.stringify(e.metadata)]],
      );
      await new Promise((r) => setTimeout(r, holdMs));
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
  }

  const withStore = async (body: (store: EventStore) => Promise<void>) => {
    const store = createPostgresEventStore({ connectionString: db.url, logger, recheckIntervalMs: 50 });
    try {
      await body(store);
    } finally {
      await store.close();
    }
  };

  it('does not show an event committed after an older transaction that is still open', async () => {
    await withStore(async (store) => {
      const category = freshCategory();
      const slow = appendHeldOpen(`${category}-slow`, 'slow', 800);
      await new Promise((r) => setTimeout(r, 200));
      await store.append(`${category}-fast`, [testEvent('fast')], 'any');
      expect(await store.readAll({ after: null, categories: [category], maxCount: 10 })).toEqual([]);
      await slow;
      const all = await store.readAll({ after: null, categories: [category], maxCount: 10 });
      expect(all.map((e) => e.type)).toEqual(['slow', 'fast']);
    });
  });

  it('stress: writers holding transactions open for random times; one subscriber gets each event once, in order', async () => {
    await withStore(async (store) => {
      const category = freshCategory();
      const writers = 8;
      const perWriter = 25;
      const total = writers * perWriter;
      const received = collect(
        store,
        { after: null, categories: [category], until: (all) => all.length >= total },
        60_000,
      );
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; i < perWriter; i++) {
            await appendHeldOpen(`${category}-${w}`, `w${w}-${i}`, Math.random() * 40);
          }
        }),
      );
      const all = await received;

      expect(all).toHaveLength(total);
      expect(new Set(all.map((e) => e.id)).size).toBe(total);
      const log = await store.readAll({ after: null, categories: [category], maxCount: 10_000 });
      expect(all.map((e) => e.id)).toEqual(log.map((e) => e.id));
      for (let w = 0; w < writers; w++) {
        const mine = all.filter((e) => e.type.startsWith(`w${w}-`)).map((e) => e.type);
        expect(mine).toEqual(Array.from({ length: perWriter }, (_, i) => `w${w}-${i}`));
      }
    });
  }, 90_000);

  it('orders by transaction id as a number, also where it gains a digit (99 before 100)', async () => {
    await withStore(async (store) => {
      const category = freshCategory();
      const raw = new pg.Client({ connectionString: db.url });
      await raw.connect();
      try {
        // Ids far below any running transaction, so they are readable at once; written out of order.
        for (const [tx, type] of [
          ['100', 'second'],
          ['99', 'first'],
          ['1000', 'third'],
        ] as const) {
          const e = testEvent(type);
          await raw.query(
            `INSERT INTO events (transaction_id, event_id, stream_name, stream_revision, event_type, data, metadata)
             VALUES ($1::text::xid8, $2, $3, 0, $4, '{}', $5)`,
            [tx, e.id, `${category}-${type}`, type, JSON.stringify(e.metadata)],
          );
        }
      } finally {
        await raw.end();
      }
      const all = await store.readAll({ after: null, categories: [category], maxCount: 10 });
      expect(all.map((e) => e.type)).toEqual(['first', 'second', 'third']);
      const rest = await store.readAll({
        after: all[0]?.position ?? null,
        categories: [category],
        maxCount: 10,
      });
      expect(rest.map((e) => e.type)).toEqual(['second', 'third']);
      expect((await store.headPosition([category]))?.commit).toBe(1000n);
    });
  });

  it('upcasts stored old versions on read, and leaves the stored row as it was', async () => {
    const upcast = createUpcast([
      { type: 'greeted', fromVersion: 1, up: (data) => ({ ...(data as object), language: 'en' }) },
      {
        type: 'greeted',
        fromVersion: 2,
        up: (data) => {
          const { name, ...rest } = data as { name: string };
          return { ...rest, who: name };
        },
      },
    ]);
    const store = createPostgresEventStore({ connectionString: db.url, logger, upcast });
    try {
      const stream = `${freshCategory()}-1`;
      const v1 = testEvent('greeted', { name: 'Ada' });
      const v3 = {
        ...testEvent('greeted', { who: 'Bob', language: 'fr' }),
        metadata: { ...v1.metadata, schemaVersion: 3 },
      };
      await store.append(stream, [v1, v3], 'no_stream');
      const [first, second] = await store.readStream(stream);
      expect(first?.data).toEqual({ who: 'Ada', language: 'en' });
      expect(first?.metadata.schemaVersion).toBe(3);
      expect(second?.data).toEqual({ who: 'Bob', language: 'fr' });
      const raw = new pg.Client({ connectionString: db.url });
      await raw.connect();
      const stored = await raw.query<{ data: unknown }>('SELECT data FROM events WHERE event_id = $1', [
        v1.id,
      ]);
      await raw.end();
      expect(stored.rows[0]?.data).toEqual({ name: 'Ada' });
    } finally {
      await store.close();
    }
  });

  it('refuses a batch of which only some ids are stored already, and writes none of it', async () => {
    await withStore(async (store) => {
      const stream = `${freshCategory()}-1`;
      const a = testEvent('a');
      await store.append(stream, [a], 'no_stream');
      await expect(store.append(stream, [a, testEvent('b', {}, randomUUID())], 0n)).rejects.toThrow(
        /stored already/,
      );
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['a']);
    });
  });
});

describe('postgres event store: appends made together go as one group', () => {
  const db = useTestDatabase();

  const withStores = async (count: number, body: (...stores: EventStore[]) => Promise<void>) => {
    const stores = Array.from({ length: count }, () =>
      createPostgresEventStore({ connectionString: db.url, logger, recheckIntervalMs: 50 }),
    );
    try {
      await body(...stores);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  };

  it('lets appends that may linger gather for that long, in one transaction', async () => {
    await withStores(1, async (store) => {
      const c = freshCategory();
      const started: Promise<AppendResult>[] = [];
      for (let n = 0; n < 4; n += 1) {
        // Each in a turn of the event loop of its own: without lingering, a transaction each.
        started.push(store.append(`${c}-${n}`, [testEvent('viewed')], 'any', { lingerMs: 200 }));
        await sleep(10);
      }
      const lingered = await Promise.all(started);
      expect(new Set(lingered.map((r) => r.position.commit)).size).toBe(1);
      const alone: AppendResult[] = [];
      for (let n = 0; n < 2; n += 1) {
        const pending = store.append(`${c}-alone-${n}`, [testEvent('viewed')], 'any');
        await sleep(10);
        alone.push(await pending);
      }
      expect(new Set(alone.map((r) => r.position.commit)).size).toBe(2);
    });
  });

  it('commits them in one transaction, each with its own expected revision and outcome', async () => {
    await withStores(1, async (store) => {
      const c = freshCategory();
      const seeded = testEvent('seeded');
      await store.append(`${c}-3`, [seeded], 'no_stream');
      await store.append(`${c}-4`, [testEvent('seeded')], 'no_stream');

      const [fresh, pair, next, taken, first, second, retry] = await Promise.allSettled([
        store.append(`${c}-1`, [testEvent('fresh')], 'no_stream'),
        store.append(`${c}-2`, [testEvent('one'), testEvent('two')], 'any'),
        store.append(`${c}-3`, [testEvent('next')], 0n),
        store.append(`${c}-4`, [testEvent('taken')], 'no_stream'),
        store.append(`${c}-5`, [testEvent('first')], 'any'),
        store.append(`${c}-5`, [testEvent('second')], 'any'),
        store.append(`${c}-3`, [seeded], 'any'),
      ]);

      const written = [fresh, pair, next, first, second].map((outcome) => {
        if (outcome.status !== 'fulfilled') throw new Error('an append of the group failed');
        return outcome.value;
      });
      expect(new Set(written.map((r) => r.position.commit)).size).toBe(1);
      expect(new Set(written.map((r) => r.position.prepare)).size).toBe(written.length);
      expect(written.map((r) => r.written)).toEqual([true, true, true, true, true]);
      expect(written.slice(0, 3).map((r) => r.nextRevision)).toEqual([0n, 1n, 1n]);
      expect(
        written
          .slice(3)
          .map((r) => r.nextRevision)
          .sort(),
      ).toEqual([0n, 1n]);

      expect(taken.status).toBe('rejected');
      const refusal = taken.status === 'rejected' ? (taken.reason as unknown) : undefined;
      expect(refusal).toBeInstanceOf(WrongExpectedRevisionError);
      expect(refusal).toMatchObject({ actual: 0n });
      expect(retry).toMatchObject({ status: 'fulfilled', value: { written: false } });

      const stream = async (n: number) => (await store.readStream(`${c}-${n}`)).map((e) => e.type);
      expect(await stream(1)).toEqual(['fresh']);
      expect(await stream(2)).toEqual(['one', 'two']);
      expect(await stream(3)).toEqual(['seeded', 'next']);
      expect(await stream(4)).toEqual(['seeded']);
      expect((await stream(5)).sort()).toEqual(['first', 'second']);
    });
  });

  it('writes the appends that start streams set-wise, each with the outcome it would have alone', async () => {
    await withStores(1, async (store) => {
      const c = freshCategory();
      const retried = [testEvent('b1'), testEvent('b2')];
      const earlier = await store.append(`${c}-b`, retried, 'no_stream');
      await store.append(`${c}-d`, [testEvent('there')], 'any');

      const [a, b, cc, d, e] = await Promise.allSettled([
        store.append(`${c}-a`, [testEvent('a1'), testEvent('a2'), testEvent('a3')], 'no_stream'),
        // A retry of the append above: stored already, so a duplicate.
        store.append(`${c}-b`, retried, 'no_stream'),
        store.append(`${c}-c`, [testEvent('c1')], 'no_stream'),
        // Its stream exists: a conflict.
        store.append(`${c}-d`, [testEvent('late')], 'no_stream'),
        store.append(`${c}-e`, [testEvent('e1'), testEvent('e2')], 'no_stream'),
      ]);

      const written = [a, cc, e].map((outcome) => {
        if (outcome.status !== 'fulfilled') throw new Error('an append that starts a stream failed');
        return outcome.value;
      });
      expect(written.map((r) => [r.written, r.nextRevision])).toEqual([
        [true, 2n],
        [true, 0n],
        [true, 1n],
      ]);
      expect(new Set(written.map((r) => r.position.commit)).size).toBe(1);
      const prepares = written.map((r) => r.position.prepare);
      expect(prepares).toEqual([...prepares].sort((x, y) => (x < y ? -1 : 1)));
      expect(b).toMatchObject({ status: 'fulfilled', value: { written: false, nextRevision: 1n } });
      expect(b.status === 'fulfilled' ? b.value.position : null).toEqual(earlier.position);
      expect(d.status).toBe('rejected');
      expect(d.status === 'rejected' ? (d.reason as unknown) : undefined).toMatchObject({ actual: 0n });

      const stream = async (name: string) =>
        (await store.readStream(`${c}-${name}`)).map((event) => [event.type, event.streamRevision]);
      expect(await stream('a')).toEqual([
        ['a1', 0n],
        ['a2', 1n],
        ['a3', 2n],
      ]);
      expect(await stream('b')).toEqual([
        ['b1', 0n],
        ['b2', 1n],
      ]);
      expect(await stream('d')).toEqual([['there', 0n]]);
      expect(await stream('e')).toEqual([
        ['e1', 0n],
        ['e2', 1n],
      ]);
      const last = await store.readStream(`${c}-a`, { direction: 'backwards', maxCount: 1 });
      expect(last[0]?.position).toEqual(written[0]?.position);
    });
  });

  it('does not let one append that fails fail the others of its group', async () => {
    await withStores(1, async (store) => {
      const c = freshCategory();
      const stored = testEvent('stored');
      await store.append(`${c}-bad`, [stored], 'no_stream');

      const [before, bad, after] = await Promise.allSettled([
        store.append(`${c}-a`, [testEvent('a')], 'no_stream'),
        // Partly stored already: the database raises, which ends the group's whole statement.
        store.append(`${c}-bad`, [stored, testEvent('new')], 'any'),
        store.append(`${c}-b`, [testEvent('b')], 'no_stream'),
      ]);

      expect(before).toMatchObject({ status: 'fulfilled', value: { written: true } });
      expect(after).toMatchObject({ status: 'fulfilled', value: { written: true } });
      expect(bad.status).toBe('rejected');
      expect(String(bad.status === 'rejected' ? bad.reason : '')).toMatch(/stored already/);
      expect((await store.readStream(`${c}-bad`)).map((e) => e.type)).toEqual(['stored']);
      expect((await store.readStream(`${c}-a`)).map((e) => e.type)).toEqual(['a']);
      expect((await store.readStream(`${c}-b`)).map((e) => e.type)).toEqual(['b']);
    });
  });

  it('lands every append when two processes write to the same streams in opposite orders', async () => {
    await withStores(2, async (one, two) => {
      const c = freshCategory();
      const streams = Array.from({ length: 20 }, (_, i) => `${c}-${i}`);
      for (let round = 0; round < 5; round++) {
        const [ones, twos] = await Promise.all([
          Promise.all(streams.map((s) => one.append(s, [testEvent(`one-${round}`)], 'any'))),
          Promise.all(streams.toReversed().map((s) => two.append(s, [testEvent(`two-${round}`)], 'any'))),
        ]);
        // Each process's group committed as one: neither was chosen as a deadlock's victim and retried.
        expect(new Set(ones.map((r) => r.position.commit)).size).toBe(1);
        expect(new Set(twos.map((r) => r.position.commit)).size).toBe(1);
      }
      for (const s of streams) expect(await one.readStream(s)).toHaveLength(10);
    });
  }, 30_000);
});

describe('postgres event store: notifications name the categories appended to', () => {
  const db = useTestDatabase();
  // Far longer than any test here: only a notification can wake these subscriptions.
  const NO_POLL_MS = 600_000;

  it('reads a payload as the categories it lists; an empty or unreadable one as every category', () => {
    expect(notifiedCategories('comment,channelModeration')).toEqual(
      new Set(['comment', 'channelModeration']),
    );
    expect(notifiedCategories('comment')).toEqual(new Set(['comment']));
    expect(notifiedCategories('')).toBeNull();
    expect(notifiedCategories(undefined)).toBeNull();
    expect(notifiedCategories('comment,')).toBeNull();
    expect(notifiedCategories('{"categories":["comment"]}')).toBeNull();
  });

  it("wakes another process's subscription of the category appended to, and no other", async () => {
    const reader = createPostgresEventStore({
      connectionString: db.url,
      logger,
      recheckIntervalMs: NO_POLL_MS,
    });
    const writer = createPostgresEventStore({
      connectionString: db.url,
      logger,
      recheckIntervalMs: NO_POLL_MS,
    });
    const raw = new pg.Client({ connectionString: db.url });
    await raw.connect();
    const [mine, other] = [freshCategory(), freshCategory()];
    const subscription = follow(reader, mine);
    try {
      // The subscription has made its first read and waits; its LISTEN connection is open.
      await sleep(300);
      await writer.append(`${mine}-1`, [testEvent('through the writer')], 'no_stream');
      await waitUntil(() => subscription.received.length === 1);

      // Stored without a notification (as by a writer that sends none), then announced by hand.
      const appendQuietly = async (type: string) => {
        const e = testEvent(type);
        await raw.query(
          'SELECT * FROM append_to_stream($1, -2, $2::uuid[], $3::text[], $4::jsonb[], $5::jsonb[])',
          [`${mine}-2`, [e.id], [e.type], [JSON.stringify(e.data)], [JSON.stringify(e.metadata)]],
        );
      };
      await appendQuietly('quiet');
      await raw.query(`SELECT pg_notify('event_store', $1)`, [other]);
      await sleep(500);
      expect(subscription.received).toEqual(['through the writer']);

      await raw.query(`SELECT pg_notify('event_store', $1)`, [`${other},${mine}`]);
      await waitUntil(() => subscription.received.length === 2);

      // An older writer's notification names nothing: it wakes every subscription.
      await appendQuietly('announced by an older writer');
      await raw.query(`NOTIFY event_store`);
      await waitUntil(() => subscription.received.length === 3);
      expect(subscription.received).toEqual(['through the writer', 'quiet', 'announced by an older writer']);
    } finally {
      await subscription.stop();
      await raw.end();
      await Promise.all([reader.close(), writer.close()]);
    }
  });
});

describe('postgres event store: an idle subscription costs next to nothing, however long the log', () => {
  const db = useTestDatabase();

  /** Stores `count` events of `category` in one statement (their content does not matter here). */
  async function fill(category: string, count: number): Promise<void> {
    const raw = new pg.Client({ connectionString: db.url });
    await raw.connect();
    try {
      await raw.query(
        `INSERT INTO events (event_id, stream_name, stream_revision, event_type, data, metadata)
         SELECT gen_random_uuid(), $1 || '-' || g, 0, 'filler', '{}', '{}' FROM generate_series(1, $2) g`,
        [category, count],
      );
      await raw.query('ANALYZE events');
    } finally {
      await raw.end();
    }
  }

  /** Index and table tuples read from `events` so far, once the server has published its counts. */
  async function tuplesRead(): Promise<number> {
    const raw = new pg.Client({ connectionString: db.url });
    await raw.connect();
    try {
      const { rows } = await raw.query<{ n: string }>(
        `SELECT (coalesce(idx_tup_fetch, 0) + seq_tup_read)::text AS n FROM pg_stat_user_tables
         WHERE relname = 'events'`,
      );
      return Number(rows[0]?.n ?? 0);
    } finally {
      await raw.end();
    }
  }

  it("reads of a category cost what the category holds after the reader, not the rest of the log's", async () => {
    const [busy, empty] = [freshCategory(), freshCategory()];
    await fill(busy, 30_000);
    const store = createPostgresEventStore({ connectionString: db.url, logger });
    try {
      // Control: reading 1,000 events shows up in the server's counts, so the counts can be trusted.
      const before = await tuplesRead();
      expect(await store.readAll({ after: null, categories: [busy], maxCount: 1_000 })).toHaveLength(1_000);
      await waitUntil(async () => (await tuplesRead()) >= before + 1_000, 15_000);

      const start = await tuplesRead();
      // Enough reads for the server to switch a prepared statement to a generic plan (after five).
      for (let i = 0; i < 20; i += 1) {
        expect(await store.readAll({ after: null, categories: [empty], maxCount: 100 })).toEqual([]);
        await sleep(60);
      }
      // The server publishes a connection's counts at most once a second: one more read after that.
      await sleep(1_100);
      await store.readAll({ after: null, categories: [empty], maxCount: 100 });
      await sleep(1_500);
      // Walking the log's order and filtering would read 30,000 rows per read: 600,000 here.
      expect((await tuplesRead()) - start).toBeLessThan(1_000);
    } finally {
      await store.close();
    }
  });

  it('while it hears notifications, an idle subscription reads again only every recheck interval', async () => {
    const counter = await startStatementCounter(db.url);
    const store = createPostgresEventStore({ connectionString: counter.url, logger });
    const category = freshCategory();
    const subscription = follow(store, category);
    const { received } = subscription;
    const reads = () => counter.statements.filter((s) => s.includes('FROM events')).length;
    try {
      await waitUntil(() => counter.statements.some((s) => s.startsWith('LISTEN')));
      await sleep(300);
      const idleFrom = reads();
      await sleep(3_000);
      // The default recheck is 5 s: three quiet seconds cost at most one read (250 ms would be twelve).
      expect(reads() - idleFrom).toBeLessThanOrEqual(1);

      // An append is still seen at once, through its notification.
      await store.append(`${category}-1`, [testEvent('woken')], 'no_stream');
      await waitUntil(() => received.length === 1);
      expect(received).toEqual(['woken']);
    } finally {
      await subscription.stop();
      await store.close();
      await counter.close();
    }
  });

  it('reads again soon while an open transaction holds back an event it has been told of', async () => {
    const store = createPostgresEventStore({ connectionString: db.url, logger, recheckIntervalMs: 600_000 });
    const category = freshCategory();
    const subscription = follow(store, category);
    const { received } = subscription;
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await sleep(300);
      // An unrelated transaction that has taken an id and stays open hides every later commit.
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()');
      await store.append(`${category}-1`, [testEvent('held back')], 'no_stream');
      await sleep(500);
      expect(received).toEqual([]);
      // Its end sends no notification: only the short re-read finds the event.
      await holder.query('COMMIT');
      await waitUntil(() => received.length === 1, 3_000);
    } finally {
      await subscription.stop();
      await holder.end();
      await store.close();
    }
  });
});
