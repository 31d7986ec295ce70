import { sql } from 'slonik';
import { expect } from 'vitest';
import { z } from 'zod';
import type { Projection } from '../../src/projections/projection.ts';
import { rebuildProjection } from '../../src/projections/rebuild.ts';
import type { UsedApp } from './app.ts';

/** Every row of the live tables, as JSON text, in a stable order. */
async function snapshot(used: UsedApp, tables: readonly string[]): Promise<(readonly string[])[]> {
  const rows = (table: string) =>
    used.db.pool.anyFirst(sql.type(z.object({ row: z.string() }))`
      SELECT row_to_json(t)::text AS row FROM ${sql.identifier([table])} t ORDER BY row_to_json(t)::text`);
  return Promise.all(tables.map(rows));
}

/**
 * Rebuilds a projection from the event store alone and checks its tables come out equal to the live ones.
 * Answers the live rows, so the caller can check the comparison was not between two empty tables.
 */
export async function expectRebuildEqualsLive(
  used: UsedApp,
  projection: Projection,
): Promise<(readonly string[])[]> {
  const live = await snapshot(used, projection.tables);
  await rebuildProjection({
    pool: used.db.pool,
    store: used.running.eventSourcing.store,
    connectionString: used.db.url,
    projection,
  });
  expect(await snapshot(used, projection.tables)).toEqual(live);
  return live;
}
