import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { createDatabasePool } from '../../src/db/pool.ts';
import { calmPace, nextPace, type PaceReading, startPollPace } from '../../src/http/poll-pace.ts';
import { bearer, TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { useTestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { sessionToken } from '../support/jwt.ts';

/** Keeps this process's event loop busy for `ms`, in slices that let timers run in between. */
async function overload(ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const slice = Date.now() + 150;
    while (Date.now() < slice) {
      // busy: the event loop waits
    }
    await sleep(1);
  }
}

describe('the pace policy', () => {
  const rules = {
    lagMs: 1_000,
    busyShare: 0.9,
    busySamples: 2,
    calmSamples: 3,
    queueMs: 250,
    queuedSamples: 2,
  };
  const quiet: PaceReading = { lateMs: 2, busy: 0.3, queueMs: 0 };
  const run = (readings: readonly PaceReading[]) =>
    readings.reduce((state, reading) => nextPace(state, reading, rules), calmPace).step;

  it('stays calm through a burst for database connections, and steps up while the queue stands', () => {
    // A burst: some queries still got a connection at once, so the fastest waited little.
    const burst = { ...quiet, queueMs: 40 };
    expect(run([burst, burst, burst])).toBe(0);
    // Standing: even the fastest query waited the target or more; one sample is not enough.
    const standing = { ...quiet, queueMs: 300 };
    expect(run([standing])).toBe(0);
    expect(run([standing, quiet, standing])).toBe(0);
    expect(run([standing, standing])).toBe(1);
    expect(run([standing, standing, standing])).toBe(2);
  });

  it('steps up at once on a stall, on a busy loop from its second second, up to the last factor', () => {
    expect(run([{ ...quiet, lateMs: 1_500 }])).toBe(1);
    expect(run([{ ...quiet, busy: 0.95 }])).toBe(0);
    expect(run([{ ...quiet, busy: 0.95 }, quiet, { ...quiet, busy: 0.95 }])).toBe(0);
    expect(
      run([
        { ...quiet, busy: 0.95 },
        { ...quiet, busy: 0.95 },
      ]),
    ).toBe(1);
    expect(run(Array.from({ length: 6 }, () => ({ ...quiet, busy: 1 })))).toBe(3);
  });

  it('steps down one step per calm stretch', () => {
    const busy = { ...quiet, busy: 1 };
    const late = { ...quiet, lateMs: 2_000 };
    expect(run([busy, busy, busy, quiet, quiet])).toBe(2);
    expect(run([busy, busy, busy, quiet, quiet, quiet])).toBe(1);
    expect(run([busy, busy, busy, quiet, quiet, late, quiet, quiet, quiet])).toBe(2);
    expect(run([busy, busy, busy, ...Array.from({ length: 6 }, () => quiet)])).toBe(0);
  });
});

describe('the poll pace', () => {
  const db = useTestDatabase();

  it('raises the factor while the event loop lags, step by step, and lowers it after a calm stretch', async () => {
    const pace = startPollPace({ pool: db.pool, sampleMs: 100, lagMs: 50, calmSamples: 3 });
    try {
      expect(pace.factor()).toBe(1);
      const seen = new Set<number>();
      const watching = setInterval(() => seen.add(pace.factor()), 20);
      await overload(1_000);
      await eventually(
        () => Promise.resolve(pace.factor()),
        (factor) => factor === 1,
        5_000,
      );
      clearInterval(watching);
      expect([...seen].sort((a, b) => a - b)).toEqual([1, 2, 4, 8]);
      expect(pace.interval(4_000)).toBe(4_000);
    } finally {
      pace.stop();
    }
  });

  it('counts a standing queue for database connections as overload, and a burst not', async () => {
    const small = await createDatabasePool(db.url, { maximumPoolSize: 1 });
    const pace = startPollPace({ pool: small, sampleMs: 100, lagMs: 10_000, calmSamples: 3, queueMs: 150 });
    try {
      // A burst: each query waits for the one before, briefly; some take a connection at once.
      for (let round = 0; round < 5; round++) {
        await Promise.all(Array.from({ length: 3 }, () => small.query(sql.unsafe`SELECT pg_sleep(0.02)`)));
      }
      expect(pace.factor()).toBe(1);
      // Standing: every query waits 0.4 s and more behind the others.
      const queries = Array.from({ length: 6 }, () => small.query(sql.unsafe`SELECT pg_sleep(0.4)`));
      await eventually(
        () => Promise.resolve(pace.factor()),
        (factor) => factor >= 2,
      );
      await Promise.all(queries);
      await eventually(
        () => Promise.resolve(pace.factor()),
        (factor) => factor === 1,
        5_000,
      );
    } finally {
      pace.stop();
      await small.end();
    }
  });
});

describe('X-Poll-Interval under overload', () => {
  // The wait below polls every 20 ms: far more than the per-user rate limit allows by default.
  const used = useRunningApp({ env: { POLL_CHAT_MS: '4000', API_RATE_LIMIT_PER_MINUTE: '100000' } });
  const headers = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'paced'));
  const interval = async () =>
    Number((await fetch(`${used.running.url}/api/unread`, { headers })).headers.get('x-poll-interval'));

  it('asks clients to poll less often while the service is overloaded, and as usual again after', async () => {
    expect(await interval()).toBe(4_000);
    // The app runs in this process: a busy event loop here is the service's. Long enough to hold at
    // least two whole samples (a busy second alone is a burst).
    await overload(3_200);
    expect(await interval()).toBeGreaterThan(4_000);
    await eventually(interval, (ms) => ms === 4_000, 25_000);
  }, 40_000);
});
