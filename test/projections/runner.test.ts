import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'slonik';
import { z } from 'zod';
import type { EventStore } from '../../src/events/store/port.ts';
import { createPostgresEventStore } from '../../src/events/store/postgres.ts';
import { createLogger } from '../../src/http/logger.ts';
import { loadLiveState, resumeProjection } from '../../src/projections/checkpoints.ts';
import { type ProjectionRunner, startProjectionRunner } from '../../src/projections/runner.ts';
import { freshCategory, testEvent } from '../events/store/contract.ts';
import { startApp } from '../support/app.ts';
import { useTestDatabase } from '../support/database.ts';
import { spawnService } from '../support/process.ts';
import { tallyProjection } from '../support/tally.ts';
import { replicaLocks } from '../support/replica.ts';

const db = useTestDatabase();
const logger = createLogger(process.env.TEST_LOG ?? 'silent');
let store: EventStore;
beforeAll(() => {
  store = createPostgresEventStore({ connectionString: db.url, logger });
});
afterAll(async () => {
  await store.close();
});

const tallyRow = z.object({ event_id: z.string(), type: z.string(), applied: z.number() });
const tallyOf = (name: string) =>
  db.pool.any(sql.type(tallyRow)`SELECT event_id, type, applied FROM ${sql.identifier([`${name}_tally`])}`);

/** Appends `count` events over four streams; answers their ids in append order. */
async function appendMany(category: string, count: number, type = 'counted'): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const event = testEvent(type, { i });
    await store.append(`${category}-${i % 4}`, [event], 'any');
    ids.push(event.id);
  }
  return ids;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Like the service: the read tables exist before the runner starts (see startEventSourcing). Each runner
 * has leader locks of its own, as a replica would; stopping it closes them.
 */
async function runner(
  name: string,
  category: string,
  extra: { batchSize?: number } = {},
): Promise<ProjectionRunner> {
  const projection = tallyProjection({ name, category });
  await loadLiveState(db.pool, projection);
  const locks = replicaLocks(db.url);
  const started = startProjectionRunner({
    pool: db.pool,
    store,
    locks,
    logger,
    ...extra,
    projections: [projection],
  });
  return {
    ...started,
    stop: async () => {
      await started.stop();
      await locks.close();
    },
  };
}

function expectExactlyOnce(rows: readonly z.infer<typeof tallyRow>[], ids: readonly string[]) {
  expect(rows.map((r) => r.event_id).sort()).toEqual([...ids].sort());
  expect(rows.every((r) => r.applied === 1)).toBe(true);
}

describe('projection runner', () => {
  it('applies every event exactly once across a crash between writing a batch and committing it', async () => {
    const name = 'crashy';
    const category = freshCategory();
    const events = await appendMany(category, 60);
    await loadLiveState(db.pool, tallyProjection({ name, category }));
    const worker = spawnService(process.execPath, ['test/support/projection-worker.ts'], {
      DATABASE_URL: db.url,
      CATEGORY: category,
      NAME: name,
    });
    let unfinished: string;
    try {
      await worker.waitFor(/(wrote [0-9a-f-]+\n){2}/, 30_000);
      // Killed while the third batch's rows are written and its transaction is still open.
      const [, id] = await worker.waitFor(/(?:wrote [0-9a-f-]+\n){2}wrote ([0-9a-f-]+)\n/, 30_000);
      unfinished = id ?? '';
      worker.child.kill('SIGKILL');
    } finally {
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
    const afterCrash = await tallyOf(name);
    expect(afterCrash.length).toBe(20);
    expect(afterCrash.map((r) => r.event_id)).not.toContain(unfinished);

    const restarted = await runner(name, category);
    try {
      await until(async () => (await tallyOf(name)).length === events.length, 'all events are applied');
      expectExactlyOnce(await tallyOf(name), events);
    } finally {
      await restarted.stop();
    }
  }, 60_000);

  it('runs one active runner per projection across runners, and another takes over when it stops', async () => {
    const name = 'shared';
    const category = freshCategory();
    const first = await runner(name, category);
    const second = await runner(name, category);
    const runners = [first, second];
    try {
      await until(async () => runners.some((r) => r.isLeader(name)), 'one runner leads');
      expect(runners.filter((r) => r.isLeader(name))).toHaveLength(1);
      const leader = runners.find((r) => r.isLeader(name)) as ProjectionRunner;
      const follower = runners.find((r) => r !== leader) as ProjectionRunner;

      const before = await appendMany(category, 30);
      await until(async () => (await tallyOf(name)).length === before.length, 'the first events are applied');
      await leader.stop();
      await until(() => Promise.resolve(follower.isLeader(name)), 'the other runner takes over');
      const all = [...before, ...(await appendMany(category, 30))];
      await until(async () => (await tallyOf(name)).length === all.length, 'the later events are applied');
      expectExactlyOnce(await tallyOf(name), all);
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
    }
  });

  it('applies a batch in one transaction with its checkpoint: the checkpoint is the last event applied', async () => {
    const name = 'steady';
    const category = freshCategory();
    const events = await appendMany(category, 25);
    const running = await runner(name, category, { batchSize: 7 });
    try {
      await until(async () => (await tallyOf(name)).length === events.length, 'all events are applied');
      const live = await loadLiveState(db.pool, tallyProjection({ name, category }));
      const log = await store.readAll({ after: null, categories: [category], maxCount: 100 });
      expect(log.map((e) => e.id)).toEqual(events);
      expect(live.position).toEqual(log.at(-1)?.position);
    } finally {
      await running.stop();
    }
  });
});

describe('a projection that cannot apply an event', () => {
  it('stops on that event, applies what came before it, skips nothing, and says so in health and metrics', async () => {
    const category = freshCategory();
    const name = 'picky';
    const picky = tallyProjection({ name, category, poisonType: 'poison' });
    const good = await appendMany(category, 5);
    const [poison] = await appendMany(category, 1, 'poison');
    await appendMany(category, 3, 'after');

    const running = await startApp({ db, projections: [picky] });
    try {
      await until(async () => {
        const res = await fetch(`${running.url}/health/ready`);
        return res.status === 503;
      }, 'readiness reports the failure');
      const ready = (await (await fetch(`${running.url}/health/ready`)).json()) as { detail: string };
      expect(ready.detail).toContain('projection picky has failed');

      // The five events before it landed (one by one after the batch was refused); none after it.
      expectExactlyOnce(await tallyOf(name), good);
      const state = await db.pool.one(
        sql.type(
          z.object({
            status: z.string(),
            failed_event_id: z.string().nullable(),
            error: z.string().nullable(),
          }),
        )`SELECT status, failed_event_id, error FROM projections WHERE name = ${name}`,
      );
      expect(state).toEqual({
        status: 'failed',
        failed_event_id: poison ?? '',
        error: 'Error: cannot apply poison',
      });

      const metrics = await (await fetch(`${running.url}/metrics`)).text();
      expect(metrics).toMatch(/projection_failed\{projection="picky"\} 1/);
      expect(metrics).toMatch(/projection_events_applied_total\{projection="picky"\} 5/);
      const lag = /projection_lag_seconds\{projection="picky"\} ([\d.e+-]+)/.exec(metrics);
      expect(Number(lag?.[1])).toBeGreaterThan(0);
    } finally {
      await running.close();
    }

    // Deployed with the bug fixed, it still waits (nothing is skipped behind an operator's back)
    // until told to resume; then it applies the failed event and what followed.
    const fixed = await startApp({
      db,
      projections: [tallyProjection({ name, category })],
    });
    try {
      await new Promise((r) => setTimeout(r, 500));
      expect((await fetch(`${fixed.url}/health/ready`)).status).toBe(503);
      expect((await tallyOf(name)).length).toBe(good.length);
      expect(await resumeProjection(db.pool, name)).toBe(true);
      await until(async () => (await tallyOf(name)).length === 9, 'the rest is applied');
      expect((await tallyOf(name)).every((r) => r.applied === 1)).toBe(true);
      await until(async () => (await fetch(`${fixed.url}/health/ready`)).status === 200, 'ready again');
      expect(await resumeProjection(db.pool, name)).toBe(false);
    } finally {
      await fixed.close();
    }
  });

  it('reports throughput, and no lag once caught up', async () => {
    const category = freshCategory();
    const name = 'metered';
    const events = await appendMany(category, 12);
    const running = await startApp({ db, projections: [tallyProjection({ name, category })] });
    try {
      await until(async () => (await tallyOf(name)).length === events.length, 'all events are applied');
      const metrics = await (await fetch(`${running.url}/metrics`)).text();
      expect(metrics).toMatch(/projection_events_applied_total\{projection="metered"\} 12/);
      expect(metrics).toMatch(/projection_lag_seconds\{projection="metered"\} 0/);
      expect(metrics).toMatch(/projection_failed\{projection="metered"\} 0/);
      expect((await fetch(`${running.url}/health/ready`)).status).toBe(200);
    } finally {
      await running.close();
    }
  });
});
