import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../../src/db/pool.ts';

/**
 * Every row of every table the service has (the event store, plain tables and every projection
 * generation), as JSON text: for tests that prove something is stored nowhere.
 */
export async function databaseText(pool: DatabasePool): Promise<string> {
  const tables = await pool.any(sql.type(z.object({ schemaname: z.string(), tablename: z.string() }))`
    SELECT schemaname, tablename FROM pg_tables
    WHERE schemaname = current_schema() OR schemaname LIKE 'projection\\_%'`);
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
