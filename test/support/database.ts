import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { runAdminSql, withDatabase } from './admin-sql.ts';
import { createDatabasePool, type DatabasePool } from '../../src/db/pool.ts';

export interface TestDatabase {
  readonly url: string;
  readonly pool: DatabasePool;
  drop(): Promise<void>;
  /** Drops the database under the open pool, as an outage would. */
  kill(): Promise<void>;
}

const admin = (statement: string) => runAdminSql(inject('adminDatabaseUrl'), statement);

/** A fresh, migrated database of this test file's own, copied from the template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await admin(`CREATE DATABASE ${name} TEMPLATE ${inject('templateDatabase')}`);
      break;
    } catch (error) {
      // Two files copying the template at the same instant can collide; try again shortly.
      if (attempt >= 10 || !String(error).includes('is being accessed by other users')) throw error;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  const url = withDatabase(inject('adminDatabaseUrl'), name);
  const pool = await createDatabasePool(url, { maximumPoolSize: 5 });
  return {
    url,
    pool,
    drop: async () => {
      await pool.end();
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
    kill: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * Gives the enclosing suite its own database for its whole run (created before its tests, dropped
 * after). Read `pool` and `url` inside hooks and tests, not at collection time.
 */
export function useTestDatabase(): TestDatabase {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  const current = (): TestDatabase => {
    if (!db) throw new Error('the test database is only there inside hooks and tests');
    return db;
  };
  return {
    get url() {
      return current().url;
    },
    get pool() {
      return current().pool;
    },
    drop: () => current().drop(),
    kill: () => current().kill(),
  };
}
