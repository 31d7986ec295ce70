import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { envSchema, type ResolvedConfig } from '../../src/config.ts';
import { createDatabasePool, type DatabasePool } from '../../src/db/pool.ts';
import type { PushOptions, PushServices } from '../../src/wiring/push.ts';
import type { SupportOptions, SupportServices } from '../../src/wiring/support.ts';
import type { EventSourcing } from '../../src/wiring/event-sourcing.ts';
import { type RunningService, type ServiceOptions, startService } from '../../src/wiring/service.ts';
import { createLogger } from '../../src/http/logger.ts';
import type { Processor } from '../../src/processors/processor.ts';
import type { Projection } from '../../src/projections/projection.ts';
import type { ObjectStorage } from '../../src/integrations/storage/port.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { waitUntil } from './eventually.ts';
import { type StatementCounter, startStatementCounter } from './statement-counter.ts';
import { localTestStorage } from './storage.ts';

export const TEST_SECRETS = {
  JWT_SECRET: 'test-jwt-secret-0123456789abcdefghijklmnop',
  ADMIN_SESSION_SECRET: 'test-admin-secret-0123456789abcdefghijklmn',
  FILE_URL_SECRET: 'test-file-secret-0123456789abcdefghijklmnop',
  DATA_KEY_SECRET: 'test-data-key-secret-0123456789abcdefghijkl',
};

export type EnvOverrides = Record<string, string | undefined>;

export function testConfig(env: EnvOverrides = {}): ResolvedConfig {
  const parsed = envSchema.parse({ NODE_ENV: 'test', LOG_LEVEL: 'info', ...TEST_SECRETS, ...env });
  return parsed as ResolvedConfig;
}

/** Collects the JSON log lines an app writes, so tests can read what would reach log storage. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export interface RunningApp {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly logs: LogCapture;
  readonly eventSourcing: EventSourcing;
  /** Intercom's sandbox (unless the env names a token), the read cache and the webhook inbox. */
  readonly support: SupportServices;
  /** The push queue, its workers and who is polling. */
  readonly push: PushServices;
  /** Every part, as the service started them (leader locks, notifications, heartbeat). */
  readonly service: RunningService;
  close(): Promise<void>;
}

export interface StartOptions {
  /** The test file's database (see database.ts): the read side and the PostgreSQL event store. */
  readonly db: { readonly pool: DatabasePool; readonly url: string };
  readonly env?: EnvOverrides;
  readonly redis?: Redis;
  /** Extra routes for tests of the HTTP conventions themselves (e.g. a handler that throws). */
  readonly extend?: (
    app: FastifyInstance,
    context: { readonly pool: DatabasePool; readonly eventSourcing: EventSourcing },
  ) => void;
  /** The projections to run (all of the service's by default). */
  readonly projections?: readonly Projection[];
  /** The processors to run (all of the service's by default; `[]` for none). */
  readonly processors?: readonly Processor[];
  /** Where uploads go: a local directory of this app's own by default, removed on close. */
  readonly storage?: ObjectStorage;
  /** Push settings: whether this replica works the queues, how fast crashed jobs come back. */
  readonly push?: Pick<PushOptions, 'runWorkers' | 'superviseIntervalSeconds' | 'retry'>;
  /**
   * Client, sandbox and inbox settings of the support chat (short waits in tests); `dataDir` keeps the
   * sandbox's records in a file there, as `npm start` does under DATA_DIR (in memory without).
   */
  readonly support?: Pick<SupportOptions, 'client' | 'sandbox' | 'runInbox' | 'dataDir'>;
  /** What media links are minted and checked by (milliseconds since the epoch); the real time by default. */
  readonly clock?: () => number;
  /** The poll pace's sampling and rules: a test can take the samples itself. */
  readonly pace?: ServiceOptions['pace'];
  /** The loopback port to listen on (any free one by default): for a provider told the address first. */
  readonly port?: number;
  /** Beat in `service_instances` as main.ts does (off by default: one test process is many apps). */
  readonly heartbeat?: boolean;
  /** Run the schedule, retention and erasure jobs as the worker role does (off by default). */
  readonly jobs?: boolean;
}

/** Production refuses to run without Intercom; tests of production behaviour get a token no call uses. */
const PRODUCTION_SUPPORT = {
  SUPPORT_ACCESS_TOKEN: 'test-intercom-token',
  SUPPORT_CLIENT_SECRET: 'test-intercom-client-secret',
  PUBLIC_BASE_URL: 'https://support.test',
};

/** The real app on a real loopback socket. */
export async function startApp(options: StartOptions): Promise<RunningApp> {
  const logs = new LogCapture();
  const config = testConfig(
    options.env?.['NODE_ENV'] === 'production' ? { ...PRODUCTION_SUPPORT, ...options.env } : options.env,
  );
  const logger = createLogger(config.LOG_LEVEL, logs);
  const { pool, url } = options.db;
  const own = options.storage ? null : await localTestStorage();
  const storage = options.storage ?? own?.storage;
  if (!storage) throw new Error('no storage');
  const service = await startService({
    config,
    roles: config.ROLES,
    name: 'test',
    databaseUrl: url,
    pool,
    redis: options.redis,
    logger,
    registry: new Registry(),
    storage,
    // One process alone: no heartbeat, whose statements the cost tests would otherwise count.
    heartbeat: options.heartbeat ?? false,
    // The jobs have tests of their own, which start them; an end-to-end test asks for them.
    jobs: options.jobs ?? false,
    ...(options.projections ? { projections: options.projections } : {}),
    ...(options.processors ? { processors: options.processors } : {}),
    push: { retry: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 200 }, ...options.push },
    support: {
      client: { maxWaitMs: 200, retryInitialDelayMs: 10, retryMaxDelayMs: 20, ...options.support?.client },
      sandbox: { webhookRetryDelayMs: 200, ...options.support?.sandbox },
      ...(options.support?.runInbox === undefined ? {} : { runInbox: options.support.runInbox }),
    },
    dataDir: options.support?.dataDir,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.pace ? { pace: options.pace } : {}),
  });
  const { app, eventSourcing, support, push } = service;
  options.extend?.(app, { pool, eventSourcing });
  await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const base = `http://127.0.0.1:${port}`;
  service.listening(base);
  return {
    app,
    url: base,
    logs,
    eventSourcing,
    support,
    push,
    service,
    close: async () => {
      // A response a test left unread keeps its connection busy, and app.close() would wait for it until
      // the server's own timeouts (about 70 s). The test is over: every connection goes.
      const closing = service.stop();
      app.server.closeAllConnections();
      await closing;
      await own?.cleanup();
    },
  };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export interface UsedApp {
  readonly db: TestDatabase;
  readonly running: RunningApp;
}

/**
 * Gives the enclosing suite a database of its own and the real app on it, started before its tests and
 * stopped after. Read `db` and `running` inside hooks and tests, not at collection time.
 */
export function useRunningApp(options: Omit<StartOptions, 'db'> = {}): UsedApp {
  let used: UsedApp | undefined;
  beforeAll(async () => {
    const db = await createTestDatabase();
    used = { db, running: await startApp({ ...options, db }) };
  });
  afterAll(async () => {
    await used?.running.close();
    await used?.db.drop();
  });
  const current = (): UsedApp => {
    if (!used) throw new Error('the app is only there inside hooks and tests');
    return used;
  };
  return {
    get db() {
      return current().db;
    },
    get running() {
      return current().running;
    },
  };
}

/**
 * Two replicas of the app sharing one database (and one Redis when the options give one), started before
 * the suite's tests and stopped after. Read `a` and `b` inside hooks and tests.
 */
export function useTwoReplicas(options: () => StartOptions): {
  readonly a: RunningApp;
  readonly b: RunningApp;
} {
  let replicas: [RunningApp, RunningApp] | undefined;
  beforeAll(async () => {
    replicas = [await startApp(options()), await startApp(options())];
  });
  afterAll(async () => {
    for (const replica of replicas ?? []) await replica.close();
  });
  const current = (): [RunningApp, RunningApp] => {
    if (!replicas) throw new Error('the replicas are only there inside hooks and tests');
    return replicas;
  };
  return {
    get a() {
      return current()[0];
    },
    get b() {
      return current()[1];
    },
  };
}

/** An app whose every database connection goes through a statement counter, and the counter. */
export interface CountedApp {
  readonly running: RunningApp;
  readonly counter: StatementCounter;
  close(): Promise<void>;
}

/**
 * The real app, with its pool, event store, LISTEN and lock connections all relayed through
 * `startStatementCounter`, so a test counts what the app asks of the database; resolves once the change
 * feed listens.
 */
export async function startCountedApp(
  db: { readonly url: string },
  options: Omit<StartOptions, 'db'> = {},
): Promise<CountedApp> {
  const counter = await startStatementCounter(db.url);
  const pool = await createDatabasePool(counter.url, { maximumPoolSize: 5 });
  const running = await startApp({ ...options, db: { pool, url: counter.url } });
  await waitUntil(() => running.eventSourcing.changes.listening());
  return {
    running,
    counter,
    async close() {
      await running.close();
      await pool.end();
      await counter.close();
    },
  };
}
