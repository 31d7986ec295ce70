import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { migrate } from '../db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../db/pool.ts';
import { createEventStore } from '../wiring/event-sourcing.ts';
import type { EventStore } from '../events/store/port.ts';
import { resolveSecrets } from '../dev/secrets.ts';
import { attachToRunningEmbeddedPostgres, startEmbeddedPostgres } from '../db/embedded.ts';

export interface CliDatabase {
  readonly url: string;
  /** Stops the embedded cluster if this command started it; leaves anyone else's alone. */
  release(): Promise<void>;
}

/**
 * The database an operator command works on: DATABASE_URL; else the embedded cluster of a service
 * running on DATA_DIR (so a rebuild runs beside the live service); else an embedded cluster of its own.
 */
export async function openCliDatabase(
  config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>,
  logger: Logger,
): Promise<CliDatabase> {
  const none = () => Promise.resolve();
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, release: none };
  const attached = await attachToRunningEmbeddedPostgres(config.DATA_DIR);
  if (attached) return { url: attached, release: none };
  const embedded = await startEmbeddedPostgres(config.DATA_DIR, logger);
  return { url: embedded.url, release: () => embedded.stop() };
}

/** What an operator command that reads or writes the service's data works with. */
export interface CliSession {
  readonly url: string;
  readonly pool: DatabasePool;
  readonly store: EventStore;
}

/** Opens the database (migrated) and the event store for `body`, and closes them after. */
export async function withSession(
  config: Config,
  logger: Logger,
  body: (s: CliSession) => Promise<void>,
): Promise<void> {
  const database = await openCliDatabase(config, logger);
  try {
    await migrate(database.url, logger);
    const pool = await createDatabasePool(database.url, { maximumPoolSize: 3 });
    // The store opens sealed fields with the data keys, whose master key is a secret (decision 048).
    const store = createEventStore({
      config: await resolveSecrets(config),
      databaseUrl: database.url,
      logger,
    });
    try {
      await body({ url: database.url, pool, store });
    } finally {
      await store.close();
      await pool.end();
    }
  } finally {
    await database.release();
  }
}
