import pg from 'pg';
import { type DatabasePool, sql } from 'slonik';
import { z } from 'zod';
import type { Position } from '../events/envelope.ts';
import type { EventStore } from '../events/store/port.ts';
import { toPosition } from '../events/envelope.ts';
import { advanceCheckpoint, loadLiveState } from './checkpoints.ts';
import { createGeneration, dropGeneration, pointViewsAt, type Projection, tablesOf } from './projection.ts';

export interface RebuildProgress {
  readonly applied: number;
  /** About how many events there are to apply (the live generation's count; the log may grow). */
  readonly expected: number;
  readonly phase: 'filling' | 'switching' | 'done';
}

export interface RebuildOptions {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly connectionString: string;
  readonly projection: Projection;
  readonly batchSize?: number;
  /** Told after each batch; the rebuild waits for a promise it returns. */
  readonly onProgress?: (progress: RebuildProgress) => void | Promise<void>;
  /** Keep the previous generation's tables (to compare them); they are dropped otherwise. */
  readonly keepPrevious?: boolean;
}

export interface RebuildResult {
  readonly previousGeneration: number;
  readonly generation: number;
  readonly applied: number;
}

/**
 * Blue/green rebuild (decision 008): fill a new generation of the read tables from the start of the
 * log while the live one keeps serving, then, under the projection's row lock (which stops the live
 * runner between two batches), apply the last few events and move the views and the live marker.
 */
export async function rebuildProjection(options: RebuildOptions): Promise<RebuildResult> {
  const { pool, store, projection } = options;
  const batchSize = options.batchSize ?? 1_000;
  const lock = new pg.Client({ connectionString: options.connectionString });
  await lock.connect();
  try {
    const { rows } = await lock.query<{ held: boolean }>(
      'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held',
      [`projection-rebuild:${projection.name}`],
    );
    if (!rows[0]?.held) throw new Error(`a rebuild of ${projection.name} is already running`);

    const live = await loadLiveState(pool, projection);
    const expected = await pool.oneFirst(sql.type(z.object({ n: z.coerce.number() }))`
      SELECT events_applied AS n FROM projection_checkpoints
      WHERE name = ${projection.name} AND generation = ${live.generation}`);
    const generation = await pool.oneFirst(sql.type(z.object({ g: z.number() }))`
      SELECT coalesce(max(generation), 0) + 1 AS g FROM projection_checkpoints WHERE name = ${projection.name}`);
    await pool.transaction(async (tx) => {
      await dropGeneration(tx, projection, generation);
      await createGeneration(tx, projection, generation);
      await tx.query(sql.unsafe`
        INSERT INTO projection_checkpoints (name, generation, version)
        VALUES (${projection.name}, ${generation}, ${projection.version})`);
    });

    const tables = tablesOf(projection, generation);
    let position: Position | null = null;
    let applied = 0;
    const report = async (phase: RebuildProgress['phase']) => {
      await options.onProgress?.({ applied, expected: Math.max(expected, applied), phase });
    };

    /** Applies one batch in `db` (its own transaction, or the switch's); false when the log is exhausted. */
    const fillOne = async (db: Pick<DatabasePool, 'transaction'>): Promise<boolean> => {
      const batch = await store.readAll({
        after: position,
        categories: projection.categories,
        maxCount: batchSize,
        ...(projection.unopened === undefined ? {} : { unopened: projection.unopened }),
      });
      const last = batch.at(-1);
      if (!last) return false;
      await db.transaction(async (tx) => {
        await projection.apply(tx, batch, tables);
        const move = {
          name: projection.name,
          generation,
          from: position,
          to: last.position,
          applied: batch.length,
        };
        if (!(await advanceCheckpoint(tx, move))) {
          throw new Error(
            `the checkpoint of ${projection.name} generation ${generation} moved under the rebuild`,
          );
        }
      });
      position = last.position;
      applied += batch.length;
      await report('filling');
      return batch.length === batchSize;
    };

    await report('filling');
    while (await fillOne(pool));

    await report('switching');
    const previous = await pool.transaction(async (tx) => {
      const row = await tx.one(sql.type(z.object({ active_generation: z.number() }))`
        SELECT active_generation FROM projections WHERE name = ${projection.name} FOR UPDATE`);
      // What was appended while filling; the live runner waits on the row lock meanwhile.
      while (await fillOne(tx));
      await pointViewsAt(tx, projection, generation);
      await tx.query(sql.unsafe`
        UPDATE projections SET active_generation = ${generation}, status = 'running', failed_event_id = NULL,
          failed_event_type = NULL, error = NULL, failed_at = NULL
        WHERE name = ${projection.name}`);
      return row.active_generation;
    });
    if (!options.keepPrevious) {
      await pool.transaction(async (tx) => {
        await dropGeneration(tx, projection, previous);
        await tx.query(sql.unsafe`
          DELETE FROM projection_checkpoints WHERE name = ${projection.name} AND generation = ${previous}`);
      });
    }
    await report('done');
    return { previousGeneration: previous, generation, applied };
  } finally {
    await lock.end();
  }
}

/** The position a generation has applied up to (null: nothing yet). */
export async function generationPosition(
  pool: DatabasePool,
  name: string,
  generation: number,
): Promise<Position | null> {
  const row = await pool.one(sql.type(
    z.object({
      commit_position: z.coerce.bigint().nullable(),
      prepare_position: z.coerce.bigint().nullable(),
    }),
  )`SELECT commit_position, prepare_position FROM projection_checkpoints
    WHERE name = ${name} AND generation = ${generation}`);
  return toPosition(row);
}
