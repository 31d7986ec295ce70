// A projection runner in a process of its own, so that a test can kill it with SIGKILL mid-batch.
// Environment: DATABASE_URL, CATEGORY, NAME; it prints `wrote <last event id>` inside each batch's
// transaction, after the rows are written and before the commit, then holds the transaction open.
import { sql } from 'slonik';
import { createDatabasePool } from '../../src/db/pool.ts';
import { createPostgresEventStore } from '../../src/events/store/postgres.ts';
import { createLogger } from '../../src/http/logger.ts';
import { startProjectionRunner } from '../../src/projections/runner.ts';
import { tallyProjection } from './tally.ts';
import { createLeaderLocks } from '../../src/db/leader-lock.ts';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const url = env('DATABASE_URL');
const logger = createLogger('info');
const pool = await createDatabasePool(url, { maximumPoolSize: 2 });
const store = createPostgresEventStore({ connectionString: url, logger });
startProjectionRunner({
  pool,
  store,
  locks: createLeaderLocks({ connectionString: url, logger }),
  logger,
  batchSize: 10,
  projections: [
    tallyProjection({
      name: env('NAME'),
      category: env('CATEGORY'),
      afterWrite: async (db, events) => {
        process.stdout.write(`wrote ${events.at(-1)?.id ?? ''}\n`);
        await db.query(sql.unsafe`SELECT pg_sleep(0.3)`);
      },
    }),
  ],
});
