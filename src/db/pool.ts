import { createPool, type DatabasePool, type Interceptor, SchemaValidationError, sql } from 'slonik';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';

export type { DatabasePool } from 'slonik';

// Rows of a query built with `sql.type(schema)` are checked against that schema, so a column that
// changed shape fails loudly at the boundary instead of leaking a wrong type into the service.
// Row schemas are synchronous (zod without async refinements), so rows are checked without an extra
// promise per row; an async schema is a programming error and says so.
const validateRows: Interceptor = {
  name: 'validate-rows',
  transformRow: (context, query, row) => {
    const parser = context.resultParser;
    if (!parser) return row;
    const result = parser['~standard'].validate(row);
    if (result instanceof Promise) throw new Error('row schemas must be synchronous');
    if (result.issues) throw new SchemaValidationError(query, row, result.issues);
    return result.value as typeof row;
  },
};

export interface PoolOptions {
  readonly maximumPoolSize?: number;
  /** The clock the waits for a connection are timed on, in ms. Default `performance.now`; tests drive their own. */
  readonly now?: () => number;
}

/** How long queries wait for a connection of a pool: what the poll pace reads (decision 022). */
export interface PoolWaits {
  /** The shortest wait for a connection since the last call, in ms; null when none was handed out. */
  takeFastest(): number | null;
  /** When a connection was last handed out, by `now`; -Infinity before the first. */
  lastHandedOut(): number;
  /** The clock the waits are timed on. */
  now(): number;
}

const waitsOfPools = new WeakMap<DatabasePool, PoolWaits>();

/** The waits of a pool made by `createDatabasePool`; null for any other. */
export const poolWaitsOf = (pool: DatabasePool): PoolWaits | null => waitsOfPools.get(pool) ?? null;

/**
 * Times each wait for a connection: slonik hands the same context object to the hooks before and after
 * a connection is taken from the pool.
 */
function recordWaits(now: () => number): { readonly interceptor: Interceptor; readonly waits: PoolWaits } {
  const asked = new WeakMap<object, number>();
  let fastest: number | null = null;
  let last = Number.NEGATIVE_INFINITY;
  return {
    interceptor: {
      name: 'pool-waits',
      beforePoolConnection: (context) => {
        asked.set(context, now());
        return null;
      },
      afterPoolConnection: (context) => {
        const at = asked.get(context);
        if (at === undefined) return null;
        last = now();
        const waited = last - at;
        fastest = fastest === null ? waited : Math.min(fastest, waited);
        return null;
      },
    },
    waits: {
      takeFastest() {
        const taken = fastest;
        fastest = null;
        return taken;
      },
      lastHandedOut: () => last,
      now,
    },
  };
}

export async function createDatabasePool(url: string, options: PoolOptions = {}): Promise<DatabasePool> {
  const { interceptor, waits } = recordWaits(options.now ?? (() => performance.now()));
  const pool = await createPool(url, {
    interceptors: [validateRows, interceptor],
    maxPoolSize: options.maximumPoolSize ?? 10,
    // slonik's default runs DISCARD ALL whenever a connection returns to the pool: a second round trip
    // for every query (decision 006). The service keeps no session state on pooled connections (no SET,
    // temp tables, LISTEN or session advisory locks); code that ever does must take a dedicated
    // connection and clean up after itself.
    resetConnection: () => Promise.resolve(),
    statementTimeout: 30_000,
    connectionTimeout: 10_000,
  });
  waitsOfPools.set(pool, waits);
  return pool;
}

/** Whether the database answers a trivial query. */
export const databaseAnswers = (pool: DatabasePool): Promise<boolean> =>
  pool.oneFirst(sql.type(z.object({ ok: z.number() }))`SELECT 1 AS ok`).then((ok) => ok === 1);
