import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../db/pool.ts';

/** A table the retention job prunes by age: its primary key, and the column that says how old a row is. */
export interface PrunedTable {
  readonly name: string;
  readonly key: readonly string[];
  readonly age: string;
}

// The statements are written here rather than in each table's module (decision 003) because the jobs
// layer may not import auth/ or projections/, which own two of these tables (decision 028).

/** Button clicks: a projection's view (decision 008); deleting through it reaches the live generation. */
export const CLICKS: PrunedTable = { name: 'post_button_clicks', key: ['event_id'], age: 'clicked_at' };
export const ADMIN_LOGS: PrunedTable = { name: 'admin_logs', key: ['id'], age: 'at' };
export const IDEMPOTENCY_KEYS: PrunedTable = {
  name: 'idempotency_keys',
  key: ['caller', 'key'],
  age: 'created_at',
};

/** Tables pruned by DATA_RETENTION_DAYS. Views, reactions and comments are never pruned (the spec). */
export const AGED_TABLES = [CLICKS, ADMIN_LOGS] as const;

/** Rows per DELETE: each statement holds its row locks briefly and takes no table lock. */
export const PRUNE_BATCH_SIZE = 5_000;

const identifiers = (columns: readonly string[]) =>
  sql.join(
    columns.map((c) => sql.identifier([c])),
    sql.fragment`, `,
  );

/**
 * Deletes the table's rows older than `before`, `batchSize` at a time, each batch its own statement and
 * transaction; `onBatch` hears each batch's count. Answers how many rows went.
 */
export async function pruneOlderThan(
  pool: DatabasePool,
  table: PrunedTable,
  before: Date,
  batchSize: number,
  onBatch: (deleted: number) => void = () => undefined,
): Promise<number> {
  const name = sql.identifier([table.name]);
  const key = identifiers(table.key);
  let total = 0;
  for (;;) {
    const deleted = await pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      WITH gone AS (
        DELETE FROM ${name} WHERE (${key}) IN (
          SELECT ${key} FROM ${name}
          WHERE ${sql.identifier([table.age])} < ${before.toISOString()}::timestamptz
          LIMIT ${batchSize})
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`);
    if (deleted > 0) onBatch(deleted);
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
