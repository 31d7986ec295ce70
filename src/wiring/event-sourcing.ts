import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ResolvedConfig } from '../config.ts';
import type { LeaderLocks } from '../db/leader-lock.ts';
import type { Notifications } from '../db/notifications.ts';
import type { DatabasePool } from '../db/pool.ts';
import { createDataKeys, type DataKeys } from '../events/store/data-keys.ts';
import { createKurrentDbEventStore } from '../events/store/kurrentdb.ts';
import type { EventStore } from '../events/store/port.ts';
import { createPostgresEventStore } from '../events/store/postgres.ts';
import { withSealing } from '../events/store/sealing.ts';
import { masterKey } from '../lib/sealed-box.ts';
import { upcast } from '../events/upcasters.ts';
import { type ChangeFeed, createChangeFeed } from '../projections/changes.ts';
import { loadLiveState } from '../projections/checkpoints.ts';
import { allProjections } from '../projections/index.ts';
import { createProjectionWaiter, type ProjectionWaiter } from '../projections/progress.ts';
import type { Projection } from '../projections/projection.ts';
import { type ProjectionRunner, startProjectionRunner } from '../projections/runner.ts';
import { allProcessors, type ProcessorPorts } from '../processors/index.ts';
import type { Processor } from '../processors/processor.ts';
import { type ProcessorRunner, startProcessorRunner } from '../processors/runner.ts';

export interface EventSourcing {
  readonly store: EventStore;
  /** The users' data keys the store seals with: erasing one erases what it sealed (decision 048). */
  readonly keys: DataKeys;
  readonly projections: ProjectionRunner;
  readonly processors: ProcessorRunner;
  readonly waiter: ProjectionWaiter;
  /** What the read side's caches key on: the scopes each projection batch changed, here or elsewhere. */
  readonly changes: ChangeFeed;
  /** The names of the projections running here (none in a process without the worker role). */
  readonly projectionNames: readonly string[];
  stop(): Promise<void>;
}

export interface EventSourcingOptions {
  readonly config: EventStoreConfig;
  /** The read side's database; also the PostgreSQL event store's unless EVENT_STORE=kurrentdb. */
  readonly databaseUrl: string;
  readonly pool: DatabasePool;
  readonly logger: Logger;
  readonly registry?: Registry;
  /** How the other processes are heard (the change feed); without it, only this process's batches are. */
  readonly notifications?: Notifications;
  /**
   * This process's leader locks, when it runs the projections and processors (the worker role); null
   * when they run elsewhere and it only reads their tables and appends (the api role).
   */
  readonly locks: LeaderLocks | null;
  /** Which projections run here; all of them unless a test says otherwise. */
  readonly projections?: readonly Projection[];
  /** Which processors run here: all of them on `processorPorts` unless a test names its own (none without either). */
  readonly processors?: readonly Processor[];
  /** What the service's processors act through (the push queue). */
  readonly processorPorts?: ProcessorPorts;
  /** Connections of the PostgreSQL event store's own pool (10 by default). */
  readonly storePoolSize?: number;
}

export type EventStoreConfig = Pick<
  ResolvedConfig,
  'EVENT_STORE' | 'EVENTSTORE_URL' | 'DATA_KEY_SECRET' | 'DATA_KEY_SECRET_PREVIOUS'
>;

/** The users' data keys, in the read side's database whichever store holds the events. */
export function createDataKeysOf(config: EventStoreConfig, databaseUrl: string): DataKeys {
  return createDataKeys({
    connectionString: databaseUrl,
    master: masterKey(config.DATA_KEY_SECRET),
    previous: config.DATA_KEY_SECRET_PREVIOUS ? [masterKey(config.DATA_KEY_SECRET_PREVIOUS)] : [],
    eventsInThisDatabase: config.EVENT_STORE === 'postgres',
  });
}

/**
 * The configured event store, sealing the personal fields of events with `keys` (made here unless given).
 * Closing the store closes the keys.
 */
export function createEventStore(
  options: Pick<EventSourcingOptions, 'config' | 'databaseUrl' | 'logger'> & {
    readonly poolSize?: number;
    readonly keys?: DataKeys;
  },
): EventStore {
  const { config, logger } = options;
  const keys = options.keys ?? createDataKeysOf(config, options.databaseUrl);
  if (config.EVENT_STORE === 'kurrentdb') {
    if (!config.EVENTSTORE_URL) throw new Error('EVENTSTORE_URL is required when EVENT_STORE=kurrentdb');
    return withSealing(
      createKurrentDbEventStore({ connectionString: config.EVENTSTORE_URL, logger }),
      keys,
      upcast,
    );
  }
  const store = createPostgresEventStore({
    connectionString: options.databaseUrl,
    logger,
    ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
  });
  return withSealing(store, keys, upcast);
}

/** Where processes tell each other of an erased key, so none keeps it in its cache. */
export const DATA_KEY_ERASED = 'data_key_erased';

/**
 * The event store with the projections and processors running on it: what main.ts and tests start
 * alike. Resolves once every projection's read tables exist, so the first request never finds them
 * missing.
 */
export async function startEventSourcing(options: EventSourcingOptions): Promise<EventSourcing> {
  const list = options.projections ?? allProjections;
  // Every process waits for the read tables, also one that does not fill them.
  for (const projection of list) await loadLiveState(options.pool, projection);
  const keys = createDataKeysOf(options.config, options.databaseUrl);
  const store = createEventStore({ ...options, keys, poolSize: options.storePoolSize });
  // A key erased elsewhere leaves this cache; after a lost connection, every key does.
  options.notifications?.listen(
    DATA_KEY_ERASED,
    (keyId) => {
      keys.forget(keyId);
    },
    () => {
      keys.forget();
    },
  );
  const changes = createChangeFeed({
    logger: options.logger,
    ...(options.notifications === undefined ? {} : { notifications: options.notifications }),
  });
  const { locks } = options;
  const running = locks === null ? [] : list;
  const projections = startProjectionRunner({
    changes,
    pool: options.pool,
    store,
    locks: locks ?? NO_LOCKS,
    projections: running,
    logger: options.logger,
    ...(options.registry ? { registry: options.registry } : {}),
  });
  const processors = startProcessorRunner({
    pool: options.pool,
    store,
    locks: locks ?? NO_LOCKS,
    processors:
      locks === null
        ? []
        : (options.processors ??
          (options.processorPorts === undefined ? [] : allProcessors(options.processorPorts))),
    logger: options.logger,
    ...(options.registry ? { registry: options.registry } : {}),
  });
  return {
    store,
    keys,
    projections,
    processors,
    waiter: createProjectionWaiter(options.pool, changes),
    changes,
    projectionNames: running.map((p) => p.name),
    async stop() {
      await Promise.all([projections.stop(), processors.stop()]);
      await Promise.all([store.close(), changes.close()]);
    },
  };
}

/** For runners with nothing to run: they never ask for a lock. */
const NO_LOCKS: LeaderLocks = {
  become: () => Promise.resolve(null),
  connected: () => false,
  close: () => Promise.resolve(),
};
