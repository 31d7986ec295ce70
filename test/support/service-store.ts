import { createLogger } from '../../src/http/logger.ts';
import { createEventStore } from '../../src/wiring/event-sourcing.ts';

/**
 * The event store as the service builds it: PostgreSQL, personal fields sealed with data keys under
 * `dataKeySecret` (decision 048). For a test's own rebuild or process beside a running service, which must
 * read and write the log as the service does. No vitest import: spawned processes use it too.
 */
export const serviceEventStore = (
  databaseUrl: string,
  dataKeySecret: string,
  logger = createLogger('silent'),
) =>
  createEventStore({
    config: {
      EVENT_STORE: 'postgres',
      EVENTSTORE_URL: undefined,
      DATA_KEY_SECRET: dataKeySecret,
      DATA_KEY_SECRET_PREVIOUS: undefined,
    },
    databaseUrl,
    logger,
  });
