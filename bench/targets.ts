import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { envSchema, type ResolvedConfig } from '../src/config.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { type NotificationSettings, updateNotificationSettings } from '../src/push/notification-settings.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { mintSessionToken } from '../src/dev/token.ts';
import type { EventSourcing } from '../src/wiring/event-sourcing.ts';
import { startService as startOwnService } from '../src/wiring/service.ts';
import type { SupportServices } from '../src/wiring/support.ts';
import { Registry } from 'prom-client';
import { localStorage } from '../src/integrations/storage/local.ts';
import type { ObjectStorage } from '../src/integrations/storage/port.ts';
import { createLogger } from '../src/http/logger.ts';
import { createRedis } from '../src/integrations/redis.ts';
import type { Target } from './load.ts';
import type { Teardown } from './teardown.ts';

export const BENCH_USER_ID = 'bench-user';
// Not the defaults, so the sanity check proves the read hit the seeded row.
const SEEDED: NotificationSettings = { chatMessages: false, ticketUpdates: true, systemNotices: false };
// Above anything the bench can send in a minute (the schema's maximum); the limiter still runs.
const RATE_LIMIT_PER_MINUTE = '1000000';
// The admin bench times logins with an unknown email; the lockout (the schema's maximum) still counts them.
const LOGIN_MAX_FAILURES = '1000';
const TOKEN_TTL_SECONDS = 3600;

/** Where a service listens: any free port, or a port several API processes share (SO_REUSEPORT). */
export interface ListenAt {
  readonly port: number;
  readonly reusePort: boolean;
}

async function listen(app: FastifyInstance, at: ListenAt = { port: 0, reusePort: false }): Promise<string> {
  // fastify hands these to server.listen; its type lacks Node's reusePort, so no object literal here.
  const options = {
    host: '127.0.0.1',
    port: at.port,
    ...(at.reusePort ? { exclusive: true, reusePort: true } : {}),
  };
  await app.listen(options);
  const address = app.server.address();
  if (typeof address !== 'object' || !address) throw new Error('server has no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

/** The floor: fastify with no plugins, hooks or logger. */
export async function startHello(teardown: Teardown): Promise<Target> {
  const app = Fastify();
  app.get('/hello', () => ({ hello: 'world' }));
  const base = await listen(app);
  teardown.add('hello app', () => app.close());
  return { url: `${base}/hello` };
}

export interface ServiceOptions {
  readonly logLevel: string;
  readonly poolSize: number | undefined;
  /** Where uploads go: a local directory of the bench's own by default. */
  readonly storage?: ObjectStorage;
  /**
   * Settings of a bench's own on top of the production ones (the push bench's loopback fakes, say). ROLES,
   * PROCESS_NAME and REDIS_URL there make this one process of several (the fleet's multi-process mode).
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Where the app listens; any free port by default. */
  readonly listen?: ListenAt;
  /**
   * The address the service is reached at when it is not this process's own (a worker: the API
   * processes' port), where the sandbox in this process sends its webhooks.
   */
  readonly publicBase?: string;
}

export interface Service {
  /** The settings the service runs with. */
  readonly config: ResolvedConfig;
  /** The settings read, with a token for the bench user. */
  readonly target: Target;
  /** Where the app listens: `http://127.0.0.1:<port>`. */
  readonly base: string;
  /** The app's pool, for a benchmark to seed what it reads. */
  readonly pool: DatabasePool;
  /** The app's metrics (http_requests_total, …), for a benchmark that counts what this process served. */
  readonly registry: Registry;
  readonly database: 'DATABASE_URL' | 'embedded PostgreSQL';
  /** undefined when slonik does not report it (it then uses its own default). */
  readonly poolSize: number | undefined;
  /** The app's event store, projection runner and waiter, for a benchmark that times projections. */
  readonly eventSourcing: EventSourcing;
  /** Intercom's sandbox, the read cache and the webhook inbox. */
  readonly support: SupportServices;
  /** Mints a client session token, as a host backend would, for a user of the benchmark's choosing. */
  readonly sessionToken: (userId: string) => string;
}

/** The configuration production runs with (boot-guard settings on), with throwaway secrets. */
function benchConfig(logLevel: string, env: Readonly<Record<string, string>> = {}): ResolvedConfig {
  const secret = () => randomBytes(32).toString('base64url');
  const parsed = envSchema.parse({
    NODE_ENV: 'production',
    LOG_LEVEL: logLevel,
    REQUIRE_JWT_EXP: '1',
    CORS_ORIGINS: 'https://app.example.com',
    API_RATE_LIMIT_PER_MINUTE: RATE_LIMIT_PER_MINUTE,
    ADMIN_LOGIN_MAX_FAILURES: LOGIN_MAX_FAILURES,
    JWT_SECRET: secret(),
    ADMIN_SESSION_SECRET: secret(),
    FILE_URL_SECRET: secret(),
    DATA_KEY_SECRET: secret(),
    // The boot guards do not run here, so a bench may point the senders at its fakes.
    ...env,
  });
  return parsed as ResolvedConfig;
}

/** A fresh temporary directory, removed at teardown. */
export async function temporaryDirectory(prefix: string, teardown: Teardown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  teardown.add('temporary directory', () => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** `DATABASE_URL` when set, otherwise an embedded PostgreSQL in a fresh temporary directory. */
export async function databaseUrl(teardown: Teardown, logger: Logger): Promise<string> {
  const given = process.env.DATABASE_URL;
  if (given) return given;
  const dir = await temporaryDirectory('svc-bench-pg-', teardown);
  // Started by root, the cluster runs as the `postgres` user, which must be able to enter the directory.
  await chmod(dir, 0o755);
  const embedded = await startEmbeddedPostgres(dir, logger);
  teardown.add('embedded PostgreSQL', () => embedded.stop());
  return embedded.url;
}

// When autocannon stops it drops its sockets, but the requests it abandoned still run; ending the pool
// under them would log failures that have nothing to do with the measurement.
async function drained(pool: DatabasePool): Promise<void> {
  for (let waitedMs = 0; waitedMs < 5_000; waitedMs += 20) {
    const { acquiredConnections, waitingClients } = pool.state();
    if (acquiredConnections === 0 && waitingClients === 0) return;
    await sleep(20);
  }
}

/** The real app, as main.ts composes it, on a migrated database with the bench user's row in place. */
export async function startService(options: ServiceOptions, teardown: Teardown): Promise<Service> {
  const config = benchConfig(options.logLevel, options.env);
  const logger = createLogger(config.LOG_LEVEL);
  const url = await databaseUrl(teardown, logger);
  await migrate(url, logger);
  const pool = await createDatabasePool(
    url,
    options.poolSize === undefined ? {} : { maximumPoolSize: options.poolSize },
  );
  teardown.add('database pool', async () => {
    await drained(pool);
    await pool.end();
  });
  await updateNotificationSettings(pool, BENCH_USER_ID, SEEDED);

  const storage = options.storage ?? localStorage(await temporaryDirectory('svc-bench-uploads-', teardown));
  // Only with REDIS_URL in `env`: one process alone keeps its limits and caches in memory, as it always has.
  const redis = config.REDIS_URL === undefined ? undefined : createRedis(config.REDIS_URL, logger);
  if (redis) teardown.add('redis', () => redis.quit());
  const registry = new Registry();
  const service = await startOwnService({
    config,
    roles: config.ROLES,
    name: config.PROCESS_NAME ?? 'bench',
    databaseUrl: url,
    pool,
    redis,
    logger,
    registry,
    storage,
    // The bench runs production settings, but Intercom is the sandbox here (in this process, or at
    // SUPPORT_BASE_URL in another's).
    support: { sandboxInProduction: true },
  });
  teardown.add('service', () => service.stop());
  const { app, eventSourcing, support } = service;
  const base = await listen(app, options.listen);
  service.listening(options.publicBase ?? base);

  const { token } = mintSessionToken(config.JWT_SECRET, BENCH_USER_ID, TOKEN_TTL_SECONDS);
  const target = {
    url: `${base}/api/settings/notifications`,
    headers: { authorization: `Bearer ${token}` },
  };
  // A worker alone serves health and metrics only: there is no API to check.
  if (config.ROLES.includes('api')) await assertAnswers(target, (body) => isDeepStrictEqual(body, SEEDED));
  return {
    config,
    target,
    base,
    pool,
    registry,
    database: process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL',
    poolSize: pool.configuration.maxPoolSize,
    eventSourcing,
    support,
    sessionToken: (userId) => mintSessionToken(config.JWT_SECRET, userId, TOKEN_TTL_SECONDS).token,
  };
}

// The load run checks status codes only; one full check up front catches a wrong token or an empty read.
export async function assertAnswers(target: Target, expected: (body: unknown) => boolean): Promise<void> {
  const response = await fetch(target.url, { headers: target.headers });
  const body: unknown = await response.json();
  if (response.status !== 200 || !expected(body)) {
    throw new Error(`sanity check of ${target.url} failed: ${response.status} ${JSON.stringify(body)}`);
  }
}
