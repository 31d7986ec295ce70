import { createPool, type DatabasePool, type Interceptor, SchemaValidationError, sql } from 'slonik';
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
}

export function createDatabasePool(url: string, options: PoolOptions = {}): Promise<DatabasePool> {
  return createPool(url, {
    interceptors: [validateRows],
    maxPoolSize: options.maximumPoolSize ?? 10,
    // slonik's default runs DISCARD ALL whenever a connection returns to the pool: a second round trip
    // for every query (decision 006). The service keeps no session state on pooled connections (no SET,
    // temp tables, LISTEN or session advisory locks); code that ever does must take a dedicated
    // connection and clean up after itself.
    resetConnection: () => Promise.resolve(),
    statementTimeout: 30_000,
    connectionTimeout: 10_000,
  });
}

/** Whether the database answers a trivial query. */
export const databaseAnswers = (pool: DatabasePool): Promise<boolean> =>
  pool.oneFirst(sql.type(z.object({ ok: z.number() }))`SELECT 1 AS ok`).then((ok) => ok === 1);
