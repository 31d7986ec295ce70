import { afterEach } from 'vitest';
import { createTestDatabase, type TestDatabase } from './database.ts';

interface Closable {
  close(): Promise<void>;
}

/**
 * What a test opens, closed after it in the reverse order: `closing(thing)` registers and returns it;
 * `database()` is a fresh test database, dropped after the test.
 */
export function closeAfterEach(): {
  closing: <T extends Closable>(thing: T) => T;
  database: () => Promise<TestDatabase>;
} {
  const open: Closable[] = [];
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });
  const closing = <T extends Closable>(thing: T): T => {
    open.push(thing);
    return thing;
  };
  return {
    closing,
    async database() {
      const db = await createTestDatabase();
      closing({ close: () => db.drop() });
      return db;
    },
  };
}
