import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../../src/db/pool.ts';

/**
 * Every row of every table in the database outside PostgreSQL's own schemas (the event store, plain
 * tables, every projection generation, pg-boss's queue), as JSON text: for tests that prove something is
 * stored nowhere. A partitioned table is read through its parent, so no row shows twice.
 */
export async function databaseText(pool: DatabasePool): Promise<string> {
  const tables = await pool.any(sql.type(z.object({ schemaname: z.string(), tablename: z.string() }))`
    SELECT n.nspname AS schemaname, c.relname AS tablename
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'`);
  const parts = await Promise.all(
    tables.map(async (t) =>
      (
        await pool.anyFirst(sql.type(z.object({ row: z.string() }))`
          SELECT row_to_json(x)::text AS row FROM ${sql.identifier([t.schemaname, t.tablename])} x`)
      ).join('\n'),
    ),
  );
  return parts.join('\n');
}
