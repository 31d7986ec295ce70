import { sql } from 'slonik';
import { z } from 'zod';
import { MIGRATIONS_TABLE } from './migrate.ts';
import type { DatabasePool } from './pool.ts';

/**
 * Empties every table of the service, the PostgreSQL event store and every projection generation
 * included (the migration history stays). Development only. Running projections notice that their
 * checkpoints are gone and start again from an empty log.
 */
export async function emptyAllTables(pool: DatabasePool): Promise<string[]> {
  const tables = await pool.any(sql.type(z.object({ schemaname: z.string(), tablename: z.string() }))`
    SELECT schemaname, tablename FROM pg_tables
    WHERE (schemaname = current_schema() AND tablename <> ${MIGRATIONS_TABLE})
       OR schemaname LIKE 'projection\\_%'
    ORDER BY schemaname, tablename`);
  if (tables.length > 0) {
    await pool.query(
      sql.unsafe`TRUNCATE ${sql.join(
        tables.map((t) => sql.identifier([t.schemaname, t.tablename])),
        sql.fragment`, `,
      )} RESTART IDENTITY CASCADE`,
    );
  }
  return tables.map((t) =>
    t.schemaname.startsWith('projection_') ? `${t.schemaname}.${t.tablename}` : t.tablename,
  );
}
