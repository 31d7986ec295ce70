import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import type { Position } from '../../src/events/envelope.ts';
import { createDatabasePool } from '../../src/db/pool.ts';
import { createLogger } from '../../src/http/logger.ts';
import { createChangeFeed } from '../../src/projections/changes.ts';
import { createProjectionWaiter } from '../../src/projections/progress.ts';
import { useTestDatabase } from '../support/database.ts';
import { waitUntil } from '../support/eventually.ts';
import { replicaChangeFeed } from '../support/replica.ts';

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

/** A change feed of this process only: what its runner announces, and nothing from elsewhere. */
function localFeed() {
  const changes = createChangeFeed({ logger: createLogger('silent') });
  return Object.assign(changes, {
    batch: (name: string, n: number) => {
      changes.announce(name, at(n), []);
    },
  });
}

describe('waiting for projections (read-your-writes)', () => {
  it("follows the batches it hears of, its own and other replicas', without reading the database", async () => {
    // A pool that is closed already: any read would fail the wait.
    const closed = await createDatabasePool(db.url, { maximumPoolSize: 1 });
    await closed.end();
    const logger = createLogger('silent');
    const here = replicaChangeFeed(db.url, logger);
    const elsewhere = replicaChangeFeed(db.url, logger);
    try {
      await waitUntil(() => here.listening() && elsewhere.listening());
      const waiter = createProjectionWaiter(closed, here);
      const waiting = waiter.waitFor(['alpha', 'beta'], at(10));
      here.announce('alpha', at(10), []);
      elsewhere.announce('beta', at(9), []);
      await new Promise((r) => setTimeout(r, 100));
      elsewhere.announce('beta', at(12), []);
      await expect(waiting).resolves.toBe(true);
      expect(here.heard('beta')).toEqual(at(12));
    } finally {
      await Promise.all([here.close(), elsewhere.close()]);
    }
  });

  it('without notifications from other replicas, reads the database, and stops at a failed projection', async () => {
    const waiter = createProjectionWaiter(db.pool, localFeed());
    // Applied, but the runner's progress was never seen here (it ran before this waiter listened).
    await setCheckpoint('gamma', 20);
    await expect(waiter.waitFor(['gamma'], at(20))).resolves.toBe(true);
    await setCheckpoint('delta', 1, 'failed');
    await expect(waiter.waitFor(['delta'], at(20), 5_000)).resolves.toBe(false);
  });

  it('gives up at the timeout', async () => {
    const waiter = createProjectionWaiter(db.pool, localFeed());
    await setCheckpoint('epsilon', 30);
    await expect(waiter.waitFor(['epsilon'], at(30))).resolves.toBe(true);
    await expect(waiter.waitFor(['epsilon'], at(31), 50)).resolves.toBe(false);
  });
});
