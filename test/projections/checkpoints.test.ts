import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'slonik';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { advanceCheckpoint, advanceLiveCheckpoint } from '../../src/projections/checkpoints.ts';
import { useTestDatabase } from '../support/database.ts';

const db = useTestDatabase();

const at = (n: number) => ({ commit: BigInt(n), prepare: BigInt(n) });

/** A projection of its own whose generation 2 is live, with a checkpoint at `from` for generations 1 and 2. */
async function projection(status: 'running' | 'failed' = 'running'): Promise<string> {
  const name = `p${randomBytes(4).toString('hex')}`;
  await db.pool.query(sql.unsafe`
    INSERT INTO projections (name, active_generation, status) VALUES (${name}, 2, ${status})`);
  await db.pool.query(sql.unsafe`
    INSERT INTO projection_checkpoints (name, generation, version, commit_position, prepare_position)
    VALUES (${name}, 1, 1, 5, 5), (${name}, 2, 1, 5, 5)`);
  return name;
}

const checkpoint = (name: string, generation: number) =>
  db.pool.one(sql.type(z.object({ commit_position: z.coerce.number(), events_applied: z.coerce.number() }))`
    SELECT commit_position, events_applied FROM projection_checkpoints
    WHERE name = ${name} AND generation = ${generation}`);

describe('advanceLiveCheckpoint', () => {
  it('moves the live generation of a running projection from where it stood', async () => {
    const name = await projection();
    const move = { name, generation: 2, from: at(5), to: at(9), applied: 4 };
    expect(await db.pool.transaction((tx) => advanceLiveCheckpoint(tx, move))).toBe(true);
    expect(await checkpoint(name, 2)).toEqual({ commit_position: 9, events_applied: 4 });
  });

  it('refuses (reload) a generation that is no longer live, a failed projection, and a checkpoint moved by another', async () => {
    const running = await projection();
    const failed = await projection('failed');
    const refused = [
      { name: running, generation: 1, from: at(5), to: at(9), applied: 4 },
      { name: failed, generation: 2, from: at(5), to: at(9), applied: 4 },
      { name: running, generation: 2, from: at(3), to: at(9), applied: 4 },
    ];
    for (const move of refused) {
      expect(await db.pool.transaction((tx) => advanceLiveCheckpoint(tx, move))).toBe(false);
    }
    expect(await checkpoint(running, 1)).toEqual({ commit_position: 5, events_applied: 0 });
    expect(await checkpoint(running, 2)).toEqual({ commit_position: 5, events_applied: 0 });
    expect(await checkpoint(failed, 2)).toEqual({ commit_position: 5, events_applied: 0 });
  });

  it("waits for a rebuild's switch that holds the projection's row, and then sees the switch", async () => {
    const name = await projection();
    const move = { name, generation: 2, from: at(5), to: at(9), applied: 4 };
    let released: () => void = () => undefined;
    const held = new Promise<void>((done) => {
      released = done;
    });
    let locked: () => void = () => undefined;
    const lockTaken = new Promise<void>((done) => {
      locked = done;
    });
    const rebuild = db.pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`SELECT 1 FROM projections WHERE name = ${name} FOR UPDATE`);
      locked();
      await held;
      await tx.query(sql.unsafe`UPDATE projections SET active_generation = 3 WHERE name = ${name}`);
    });
    await lockTaken;
    let settled = false;
    const batch = db.pool
      .transaction((tx) => advanceLiveCheckpoint(tx, move))
      .finally(() => {
        settled = true;
      });
    await sleep(300);
    expect(settled).toBe(false);
    released();
    await rebuild;
    expect(await batch).toBe(false);
    expect(await checkpoint(name, 2)).toEqual({ commit_position: 5, events_applied: 0 });
  });
});

describe('advanceCheckpoint', () => {
  it("moves a generation's checkpoint whatever is live (a rebuild fills one that is not), only from where it stood", async () => {
    const name = await projection();
    expect(
      await advanceCheckpoint(db.pool, { name, generation: 1, from: at(3), to: at(9), applied: 4 }),
    ).toBe(false);
    expect(
      await advanceCheckpoint(db.pool, { name, generation: 1, from: at(5), to: at(9), applied: 4 }),
    ).toBe(true);
    expect(await checkpoint(name, 1)).toEqual({ commit_position: 9, events_applied: 4 });
  });
});
