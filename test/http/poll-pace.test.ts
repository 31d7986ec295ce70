import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { createDatabasePool } from '../../src/db/pool.ts';
import {
  calmPace,
  nextPace,
  type PaceReading,
  type PaceTrigger,
  type PollPaceOptions,
  startPollPace,
  slowedInterval,
} from '../../src/http/poll-pace.ts';
import { bearer, TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { ManualClock } from '../support/clock.ts';
import { useTestDatabase } from '../support/database.ts';
import { waitUntil } from '../support/eventually.ts';
import { sessionToken } from '../support/jwt.ts';

/** The pace's timer, fired by the test, and the clock its lateness is read on: a sample is due every second. */
function handTimer() {
  const clock = new ManualClock(0);
  let take = (): void => undefined;
  return {
    every: (_ms: number, sample: () => void) => {
      take = sample;
      return () => {
        take = () => undefined;
      };
    },
    now: clock.now,
    /** One sample, taken `lateMs` after it was due. */
    sample(lateMs = 0) {
      clock.advance(1_000 + lateMs);
      take();
    },
  };
}

interface Move {
  readonly factor: number;
  readonly reading: PaceReading;
  readonly triggers: readonly PaceTrigger[];
}

/** A pace sampled by hand, with every move it made. */
function handPaced(options: Omit<PollPaceOptions, 'sampleMs' | 'every' | 'now' | 'onChange'>) {
  const timer = handTimer();
  const moves: Move[] = [];
  const pace = startPollPace({
    ...options,
    sampleMs: 1_000,
    every: timer.every,
    now: timer.now,
    // The middle of the spread: a slowed interval is exactly base × factor.
    random: () => 0.5,
    onChange: (factor, reading, triggers) => moves.push({ factor, reading, triggers }),
  });
  return {
    pace,
    moves,
    sample: (lateMs?: number) => {
      timer.sample(lateMs);
    },
  };
}

/** Work that keeps the event loop busy without giving it a turn. */
function busyWork(): void {
  let sum = 0;
  for (let i = 0; i < 100_000; i++) sum += Math.sqrt(i);
  if (sum < 0) throw new Error('unreachable');
}

describe('the pace policy', () => {
  const rules = {
    lagMs: 1_000,
    busyShare: 0.9,
    busySamples: 2,
    calmSamples: 3,
    queueMs: 250,
    queuedSamples: 2,
    // Every overloaded sample may raise; settling has a test of its own.
    settleSamples: 0,
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

  it('waits for clients to hear a raise before a busy loop or a queue raises again; a stall does not wait', () => {
    const settling = { ...rules, settleSamples: 4 };
    const steps = (readings: readonly PaceReading[]) =>
      readings.reduce((state, reading) => nextPace(state, reading, settling), calmPace).step;
    const busy = { ...quiet, busy: 1 };
    const standing = { ...quiet, queueMs: 300 };
    // Raised on the second busy sample, then four samples to settle, then raised again.
    expect(steps(Array.from({ length: 6 }, () => busy))).toBe(1);
    expect(steps(Array.from({ length: 7 }, () => busy))).toBe(2);
    expect(steps(Array.from({ length: 7 }, () => standing))).toBe(2);
    expect(steps([busy, busy, { ...quiet, lateMs: 2_000 }])).toBe(2);
    // Settling is not calm: the factor does not step down while the load stays.
    expect(steps([busy, busy, busy, busy, quiet, quiet, quiet])).toBe(0);
    expect(steps([busy, busy, busy, busy])).toBe(1);
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
  // Each test looks at one trigger; the others cannot fire.
  const quietLoop = () => 0;
  const noQueue = Number.POSITIVE_INFINITY;

  it('reads a stall from how late its own timer fired, steps up per late sample, and down per calm stretch', () => {
    const { pace, moves, sample } = handPaced({
      pool: db.pool,
      lagMs: 1_000,
      calmSamples: 3,
      utilization: quietLoop,
      queueMs: noQueue,
    });
    try {
      sample();
      // Late by the lag itself is not yet a stall.
      sample(1_000);
      expect(pace.factor()).toBe(1);
      for (const lateMs of [1_001, 1_500, 3_000, 3_000]) sample(lateMs);
      expect(moves.map((m) => [m.factor, m.reading.lateMs, m.triggers])).toEqual([
        [2, 1_001, ['late']],
        [4, 1_500, ['late']],
        [8, 3_000, ['late']],
      ]);
      expect(pace.interval(4_000)).toBe(32_000);
      // Down one step per three samples on time; a late one in between starts the stretch again.
      for (let i = 0; i < 5; i++) sample();
      expect(pace.factor()).toBe(4);
      sample(2_000);
      expect(pace.factor()).toBe(8);
      for (let i = 0; i < 9; i++) sample();
      expect(moves.slice(3).map((m) => m.factor)).toEqual([4, 8, 4, 2, 1]);
      expect(pace.interval(4_000)).toBe(4_000);
    } finally {
      pace.stop();
    }
  });

  it('counts an event loop that Node measures busy through two samples in a row, and one sample not', () => {
    const { pace, moves, sample } = handPaced({
      pool: db.pool,
      busyShare: 0.9,
      busySamples: 2,
      queueMs: noQueue,
    });
    try {
      // The test never gives the event loop a turn between samples: each sample is busy throughout.
      busyWork();
      sample();
      expect(pace.factor()).toBe(1);
      busyWork();
      sample();
      expect(moves.map((m) => [m.factor, m.reading.busy, m.triggers])).toEqual([[2, 1, ['busy']]]);
    } finally {
      pace.stop();
    }
  });

  it('counts a standing queue for database connections as overload, and a burst not', async () => {
    // The clock the pool times its waits for a connection on.
    const queue = new ManualClock(0);
    const small = await createDatabasePool(db.url, { maximumPoolSize: 1, now: queue.now });
    const { pace, moves, sample } = handPaced({
      pool: small,
      queueMs: 250,
      queuedSamples: 2,
      calmSamples: 3,
      settleSamples: 0,
      utilization: quietLoop,
    });
    /** Takes the pool's one connection, until the answered function gives it back. */
    const takeConnection = async () => {
      let release = (): void => undefined;
      const released = new Promise<void>((done) => {
        release = done;
      });
      let taken = (): void => undefined;
      const took = new Promise<void>((done) => {
        taken = done;
      });
      const held = small.connect(async () => {
        taken();
        await released;
      });
      await took;
      return async () => {
        release();
        await held;
      };
    };
    /** `n` queries that wait for the connection. */
    const waiting = async (n: number) => {
      const queries = Array.from({ length: n }, () => small.query(sql.unsafe`SELECT 1`));
      await waitUntil(() => small.state().waitingClients === n);
      return queries;
    };
    try {
      // A burst, twice: one query served at once, two more 300 ms behind it. The fastest waited nothing.
      for (let round = 0; round < 2; round++) {
        const giveBack = await takeConnection();
        const queries = await waiting(2);
        queue.advance(300);
        await giveBack();
        await Promise.all(queries);
        sample();
      }
      expect(pace.factor()).toBe(1);

      // Standing: nothing is handed out while queries wait, sample after sample.
      const giveBack = await takeConnection();
      sample();
      const queries = await waiting(2);
      queue.advance(300);
      sample();
      expect(pace.factor()).toBe(1);
      queue.advance(300);
      sample();
      expect(moves).toEqual([
        { factor: 2, reading: { lateMs: 0, busy: 0, queueMs: 600 }, triggers: ['queue'] },
      ]);
      // Served at last, each after 600 ms: still a standing queue. Then calm, one step down per stretch.
      await giveBack();
      await Promise.all(queries);
      sample();
      for (let i = 0; i < 6; i++) sample();
      expect(moves.map((m) => [m.factor, m.reading.queueMs])).toEqual([
        [2, 600],
        [4, 600],
        [2, 0],
        [1, 0],
      ]);
    } finally {
      pace.stop();
      await small.end();
    }
  });
});

describe('a slowed interval', () => {
  it('is the usual one at factor 1, and spread around base × factor above it', () => {
    expect(slowedInterval(4_000, 1, 0.99)).toBe(4_000);
    expect(slowedInterval(4_000, 8, 0.5)).toBe(32_000);
    expect(slowedInterval(4_000, 8, 0)).toBe(16_000);
    expect(slowedInterval(4_000, 8, 0.999)).toBe(47_968);
    expect(slowedInterval(10_000, 2, 0.25)).toBe(15_000);
  });
});

describe('X-Poll-Interval under overload', () => {
  const timer = handTimer();
  const used = useRunningApp({
    env: { POLL_CHAT_MS: '4000' },
    // The app's own pace, sampled by the test; only its sampler's lateness can raise it here.
    pace: {
      every: timer.every,
      now: timer.now,
      sampleMs: 1_000,
      lagMs: 1_000,
      calmSamples: 3,
      utilization: () => 0,
      queueMs: Number.POSITIVE_INFINITY,
      random: () => 0.5,
    },
  });
  const headers = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'paced'));
  const interval = async () =>
    Number((await fetch(`${used.running.url}/api/unread`, { headers })).headers.get('x-poll-interval'));

  it('asks clients to poll less often while the service is overloaded, and as usual again after', async () => {
    expect(await interval()).toBe(4_000);
    // Two samples that each came two seconds late: the service was stalled.
    timer.sample(2_000);
    expect(await interval()).toBe(8_000);
    timer.sample(2_000);
    expect(await interval()).toBe(16_000);
    for (let i = 0; i < 3; i++) timer.sample();
    expect(await interval()).toBe(8_000);
    for (let i = 0; i < 3; i++) timer.sample();
    expect(await interval()).toBe(4_000);
    expect(used.running.logs.text).toContain('poll pace: clients asked to poll less often');
  });
});
