import { sql } from 'slonik';
import { z } from 'zod';
import { MIGRATIONS_TABLE } from './migrate.ts';
import type { DatabasePool } from './pool.ts';

/** Empties every table of the service (the migration history stays). Development only. */
export async function emptyAllTables(pool: DatabasePool): Promise<string[]> {
  const tables = await pool.anyFirst(sql.type(z.object({ tablename: z.string() }))`
    SELECT tablename FROM pg_tables
    WHERE schemaname = current_schema() AND tablename <> ${MIGRATIONS_TABLE}
    ORDER BY tablename`);
  if (tables.length > 0) {
    await pool.query(
      sql.unsafe`TRUNCATE ${sql.join(
        tables.map((t) => sql.identifier([t])),
        sql.fragment`, `,
      )} RESTART IDENTITY CASCADE`,
    );
  }
  return [...tables];
}
