import { createPool, type DatabasePool, type Interceptor, SchemaValidationError } from 'slonik';

export type { DatabasePool } from 'slonik';

// Rows of a query built with `sql.type(schema)` are checked against that schema, so a column that
// changed shape fails loudly at the boundary instead of leaking a wrong type into the service.
const validateRows: Interceptor = {
  name: 'validate-rows',
  transformRowAsync: async (context, query, row) => {
    const parser = context.resultParser;
    if (!parser) return row;
    const result = await parser['~standard'].validate(row);
    if (result.issues) {
      throw new SchemaValidationError(query, row, result.issues);
    }
    return result.value as typeof row;
  },
};

export interface PoolOptions {
  readonly maximumPoolSize?: number;
}

export function createDatabasePool(url: string, options: PoolOptions = {}): Promise<DatabasePool> {
  return createPool(url, {
    interceptors: [validateRows],
    maximumPoolSize: options.maximumPoolSize ?? 10,
    statementTimeout: 30_000,
    connectionTimeout: 10_000,
  });
}
