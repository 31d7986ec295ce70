import { getPostgreSQLEventStore, type PostgresEventStore } from '@event-driven-io/emmett-postgresql';
import pg from 'pg';
import type { Teardown } from '../teardown.ts';

const PARSERS_DUMBO_REPLACES = [pg.types.builtins.INT8, pg.types.builtins.JSON, pg.types.builtins.JSONB];

/**
 * Emmett's PostgreSQL event store on `url`, schema created, pool of 10 like ours.
 *
 * Two things keep it from changing what it is compared with. Its driver layer (dumbo) replaces pg's
 * global type parsers for int8, json and jsonb when it creates its first pool (BigInt, and JSON.parse
 * with a reviver); our store uses the same `pg` module in this process, so the parsers are put back
 * once Emmett is set up, and both stores run with pg's defaults, as the service does. And the pool is
 * ours to end: dumbo counts users of its own pools and may keep one open after `close()`, whose idle
 * connections would then fail (unhandled) when the bench drops its database.
 */
export async function startEmmett(url: string, teardown: Teardown): Promise<PostgresEventStore> {
  const saved = PARSERS_DUMBO_REPLACES.map((oid) => ({
    oid,
    parse: pg.types.getTypeParser(oid) as (value: string) => unknown,
  }));
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => undefined);
  teardown.add('Emmett pool', () => pool.end());
  const store = getPostgreSQLEventStore(url, { connectionOptions: { pool } });
  teardown.add('Emmett event store', () => store.close());
  try {
    await store.schema.migrate();
  } finally {
    for (const { oid, parse } of saved) pg.types.setTypeParser(oid, parse);
  }
  return store;
}
