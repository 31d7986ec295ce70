import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { type Position, positionColumns, toPosition } from '../events/envelope.ts';
import type { Projection } from './projection.ts';
import { createGeneration, generationSchema, pointViewsAt } from './projection.ts';

export interface LiveState {
  readonly generation: number;
  readonly status: 'running' | 'failed';
  readonly position: Position | null;
  /** The projection version that built the live generation's tables. */
  readonly version: number;
}

/**
 * The live generation of a projection and its checkpoint; on first use (or after the tables were
 * emptied by devtools) generation 1 is created and the public views are pointed at it.
 */
export async function loadLiveState(db: CommonQueryMethods, projection: Projection): Promise<LiveState> {
  return db.transaction(async (tx) => {
    // Serialises first-time setup between replicas and with a rebuild's switch.
    await tx.query(
      sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`projection-setup:${projection.name}`}, 0))`,
    );
    await tx.query(sql.unsafe`
      INSERT INTO projections (name, active_generation) VALUES (${projection.name}, 1)
      ON CONFLICT (name) DO NOTHING`);
    const live = await tx.one(sql.type(
      z.object({ active_generation: z.number(), status: z.enum(['running', 'failed']) }),
    )`
      SELECT active_generation, status FROM projections WHERE name = ${projection.name}`);
    const generation = live.active_generation;
    await createGeneration(tx, projection, generation);
    if (!(await viewsPointAt(tx, projection, generation))) await pointViewsAt(tx, projection, generation);
    await tx.query(sql.unsafe`
      INSERT INTO projection_checkpoints (name, generation, version)
      VALUES (${projection.name}, ${generation}, ${projection.version})
      ON CONFLICT (name, generation) DO NOTHING`);
    const checkpoint = await tx.one(sql.type(positionColumns.extend({ version: z.number() }))`
      SELECT commit_position, prepare_position, version FROM projection_checkpoints
      WHERE name = ${projection.name} AND generation = ${generation}`);
    return {
      generation,
      status: live.status,
      position: toPosition(checkpoint),
      version: checkpoint.version,
    };
  });
}

async function viewsPointAt(
  db: CommonQueryMethods,
  projection: Projection,
  generation: number,
): Promise<boolean> {
  const schema = generationSchema(projection, generation);
  const pointing = await db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM pg_views
    WHERE schemaname = current_schema() AND viewname = ANY (${sql.array([...projection.tables], 'text')})
      AND definition LIKE ${`%${schema}.%`}`);
  return pointing === projection.tables.length;
}

/** Moves a checkpoint from `from` to `to` only if nobody else moved it: false means reload. */
export const advanceCheckpoint = (db: CommonQueryMethods, move: CheckpointMove): Promise<boolean> =>
  moveCheckpoint(db, move, false);

/**
 * `advanceCheckpoint` for the live runner, as one statement: only while `generation` is the live one and
 * running, and holding the projection's row lock to the end of the transaction, which orders the batch
 * with a rebuild's switch of generations. False means reload.
 */
export const advanceLiveCheckpoint = (db: CommonQueryMethods, move: CheckpointMove): Promise<boolean> =>
  moveCheckpoint(db, move, true);

/** A batch's move of a projection's checkpoint: `applied` events, from `from` to `to`. */
export interface CheckpointMove {
  readonly name: string;
  readonly generation: number;
  readonly from: Position | null;
  readonly to: Position;
  readonly applied: number;
}

async function moveCheckpoint(
  db: CommonQueryMethods,
  { name, generation, from, to, applied }: CheckpointMove,
  whileLive: boolean,
): Promise<boolean> {
  // Uncorrelated, the EXISTS is checked once before any row, so the lock is taken first.
  const live = whileLive
    ? sql.fragment`
      WITH live AS MATERIALIZED (
        SELECT name FROM projections
        WHERE name = ${name} AND active_generation = ${generation} AND status = 'running'
        FOR UPDATE
      )`
    : sql.fragment``;
  const result = await db.query(sql.unsafe`
    ${live}
    UPDATE projection_checkpoints
    SET commit_position = ${to.commit.toString()}, prepare_position = ${to.prepare.toString()},
        events_applied = events_applied + ${applied}, updated_at = now()
    WHERE name = ${name} AND generation = ${generation}
      AND ${whileLive ? sql.fragment`EXISTS (SELECT FROM live)` : sql.fragment`true`}
      AND commit_position IS NOT DISTINCT FROM ${from?.commit.toString() ?? null}::bigint
      AND prepare_position IS NOT DISTINCT FROM ${from?.prepare.toString() ?? null}::bigint`);
  return result.rowCount === 1;
}

/**
 * Lets a failed projection try its failed event again (after a fix was deployed): its runner picks it
 * up within a few seconds, from its checkpoint. False when it had not failed.
 */
export async function resumeProjection(db: CommonQueryMethods, name: string): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    UPDATE projections SET status = 'running', failed_event_id = NULL, failed_event_type = NULL,
      error = NULL, failed_at = NULL
    WHERE name = ${name} AND status = 'failed'`);
  return result.rowCount === 1;
}
