import { EventEmitter } from 'node:events';
import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import type { Position } from '../../src/events/envelope.ts';
import { createDatabasePool } from '../../src/db/pool.ts';
import { createProjectionWaiter, type LocalRunner } from '../../src/projections/progress.ts';
import { useTestDatabase } from '../support/database.ts';

const db = useTestDatabase();
const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });

const setCheckpoint = async (name: string, commit: number, status: 'running' | 'failed' = 'running') => {
  await db.pool.query(sql.unsafe`
    INSERT INTO projections (name, active_generation, status) VALUES (${name}, 1, ${status})
    ON CONFLICT (name) DO UPDATE SET status = EXCLUDED.status`);
  await db.pool.query(sql.unsafe`
    INSERT INTO projection_checkpoints (name, generation, version, commit_position, prepare_position)
    VALUES (${name}, 1, 1, ${commit}, ${commit})
    ON CONFLICT (name, generation) DO UPDATE
      SET commit_position = EXCLUDED.commit_position, prepare_position = EXCLUDED.prepare_position`);
};

/** This process's runner, as the waiter sees it: what it leads, and its progress after each batch. */
function runner(leads: readonly string[]): LocalRunner & { batch(name: string, n: number): void } {
  const events = new EventEmitter<{ progress: [string, Position] }>();
  return {
    events,
    isLeader: (name) => leads.includes(name),
    batch: (name, n) => events.emit('progress', name, at(n)),
  };
}

describe('waiting for projections (read-your-writes)', () => {
  it('follows the batches of a runner in this process without reading the database', async () => {
    // A pool that is closed already: any read would fail the wait.
    const closed = await createDatabasePool(db.url, { maximumPoolSize: 1 });
    await closed.end();
    const local = runner(['alpha', 'beta']);
    const waiter = createProjectionWaiter(closed, local);
    const waiting = waiter.waitFor(['alpha', 'beta'], at(10));
    local.batch('alpha', 10);
    local.batch('beta', 9);
    await new Promise((r) => setImmediate(r));
    local.batch('beta', 12);
    await expect(waiting).resolves.toBe(true);
  });

  it('reads the database when the runner falls quiet, and stops at a failed projection', async () => {
    const local = runner(['gamma', 'delta']);
    const waiter = createProjectionWaiter(db.pool, local);
    // Applied, but the runner's progress was never seen here (it ran before this waiter listened).
    await setCheckpoint('gamma', 20);
    await expect(waiter.waitFor(['gamma'], at(20))).resolves.toBe(true);
    await setCheckpoint('delta', 1, 'failed');
    await expect(waiter.waitFor(['delta'], at(20), 5_000)).resolves.toBe(false);
  });

  it('reads the database at once for a projection another replica runs, and gives up at the timeout', async () => {
    const waiter = createProjectionWaiter(db.pool, runner(['gamma']));
    await setCheckpoint('epsilon', 30);
    await expect(waiter.waitFor(['epsilon'], at(30))).resolves.toBe(true);
    await expect(waiter.waitFor(['epsilon'], at(31), 50)).resolves.toBe(false);
  });
});
