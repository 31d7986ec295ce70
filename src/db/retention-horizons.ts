import { type CommonQueryMethods, type FragmentSqlToken, sql } from 'slonik';
import { z } from 'zod';

// Plain state (decision 028): `retention_horizons`. It sits with the database machinery because two layers
// share it that may not import each other: the retention job raises a horizon, a projection reads it.

/** The horizon of `post_button_clicks`, which the clicks projection reads (its own name is the key). */
export const CLICKS_HORIZON = 'post_button_clicks';

/**
 * Moves a table's horizon to `horizon`, never back (a larger DATA_RETENTION_DAYS must not promise rows
 * that are already gone). Answers the horizon in force, which may be later than the one asked for.
 */
export async function raiseRetentionHorizon(
  db: CommonQueryMethods,
  name: string,
  horizon: Date,
): Promise<Date> {
  return db.oneFirst(sql.type(z.object({ horizon: z.coerce.date() }))`
    INSERT INTO retention_horizons AS h (name, horizon) VALUES (${name}, ${horizon.toISOString()}::timestamptz)
    ON CONFLICT (name) DO UPDATE
      SET horizon = greatest(h.horizon, EXCLUDED.horizon), updated_at = now()
    RETURNING horizon`);
}

/** The table's horizon, or null when nothing of it was ever pruned. */
export async function retentionHorizon(db: CommonQueryMethods, name: string): Promise<Date | null> {
  return db.maybeOneFirst(sql.type(z.object({ horizon: z.coerce.date() }))`
    SELECT horizon FROM retention_horizons WHERE name = ${name}`);
}

/**
 * The horizon as an SQL expression (`-infinity` when there is none), for a statement that writes only
 * what is at or after it: no extra round trip per batch.
 */
export const retentionHorizonSql = (name: string): FragmentSqlToken =>
  sql.fragment`coalesce((SELECT horizon FROM retention_horizons WHERE name = ${name}), '-infinity'::timestamptz)`;
