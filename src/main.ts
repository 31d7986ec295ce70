import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { type FirstPasswordHandover, handOverFirstPassword, seedFirstOwner } from './auth/bootstrap.ts';
import { ConfigError, type Config, loadConfig, type ResolvedConfig } from './config.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { createDatabasePool, type DatabasePool } from './db/pool.ts';
import { resolveSecrets } from './dev/secrets.ts';
import { DEMO_USER_ID, mintSessionToken } from './dev/token.ts';
import { type EventSourcing, startEventSourcing } from './wiring/event-sourcing.ts';
import { assembleApp } from './wiring/app.ts';
import { startSupport, type SupportServices } from './wiring/support.ts';
import { type PushServices, startPush } from './wiring/push.ts';
import { intercomComplaintNotes, intercomCsatNotes, intercomOnceStarted } from './wiring/provider-notes.ts';
import { type ScheduledPublisher, startScheduledPublisher } from './jobs/publish-scheduled.ts';
import { type RetentionJob, startRetentionJob } from './jobs/retention.ts';
import { chooseLogFormat, createLogger, logDestination } from './http/logger.ts';
import { createRedis } from './integrations/redis.ts';
import type { ObjectStorage } from './integrations/storage/port.ts';
import { createStorage } from './integrations/storage/index.ts';
import { version } from './lib/version.ts';

const SHUTDOWN_TIMEOUT_MS = 15_000;
const DEMO_TOKEN_TTL_SECONDS = 24 * 3600;

interface Running {
  app?: FastifyInstance;
  pool?: DatabasePool;
  redis?: Redis;
  storage?: ObjectStorage;
  eventSourcing?: EventSourcing;
  scheduler?: ScheduledPublisher;
  retention?: RetentionJob;
  support?: SupportServices;
  push?: PushServices;
  embedded?: EmbeddedDatabase;
}

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Refusing to start: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** Stops in reverse order of start; every step runs even if an earlier one failed. */
async function stopAll(running: Running, logger: Logger): Promise<boolean> {
  let clean = true;
  const step = async (name: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (error) {
      clean = false;
      logger.error({ err: error }, `shutdown: ${name} failed`);
    }
  };
  const { app, pool, redis, storage, eventSourcing, scheduler, retention, support, push, embedded } = running;
  if (app) await step('http server', () => app.close());
  if (support) await step('support chat', () => support.close());
  if (scheduler) await step('schedule job', () => scheduler.stop());
  if (retention) await step('retention job', () => retention.stop());
  if (push) await step('push queue and workers', () => push.close());
  if (eventSourcing) await step('projections and event store', () => eventSourcing.stop());
  if (pool) await step('database pool', () => pool.end());
  if (redis) await step('redis', () => redis.quit());
  if (storage) await step('storage', () => storage.close());
  if (embedded) await step('embedded postgres', () => embedded.stop());
  return clean;
}

function printBanner(
  config: ResolvedConfig,
  app: FastifyInstance,
  firstAdmin: FirstPasswordHandover | null,
): void {
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const lines = [`Service listening on ${base}`, `  API docs:   ${base}/docs`];
  if (config.NODE_ENV !== 'production') {
    const { token, expiresAt } = mintSessionToken(config.JWT_SECRET, DEMO_USER_ID, DEMO_TOKEN_TTL_SECONDS);
    lines.push(
      `  Demo user:  ${DEMO_USER_ID} (session token valid until ${expiresAt.toISOString()})`,
      `  export TOKEN=${token}`,
      `  curl -H "Authorization: Bearer $TOKEN" ${base}/api/settings/notifications`,
    );
  }
  if (firstAdmin?.to === 'terminal') {
    lines.push(
      `  First admin (shown this once): ${firstAdmin.email} / ${firstAdmin.password}`,
      `  curl -X POST -H 'content-type: application/json' ${base}/admin/auth/login \\`,
      `    -d '{"email":"${firstAdmin.email}","password":"${firstAdmin.password}"}'`,
    );
  } else if (firstAdmin?.to === 'file') {
    lines.push(
      `  First admin: ${firstAdmin.email}, password in ${firstAdmin.file} (mode 0600; delete it once used)`,
    );
  } else if (firstAdmin?.to === 'nowhere') {
    const command = `npm run cli -- admins set-password --email ${firstAdmin.email}`;
    lines.push(`  First admin: ${firstAdmin.email}, password not saved; set one with: ${command}`);
  }
  // Printed, not logged: the demo token and a generated password are meant for the developer's
  // terminal, never for log storage (and the password is only here when stderr is a terminal). On
  // stderr, so that stdout carries log lines only and a JSON reader of it never meets the banner.
  process.stderr.write(`\n${lines.join('\n')}\n\n`);
}

async function main(): Promise<void> {
  const baseConfig = readConfig();
  const logFormat = chooseLogFormat(baseConfig.LOG_FORMAT, baseConfig.NODE_ENV, process.stdout.isTTY);
  const logger = createLogger(baseConfig.LOG_LEVEL, await logDestination(logFormat));
  const running: Running = {};
  let stopping = false;

  // A second signal (Ctrl-C reaches both the npm wrapper and this process) must not restart the stop.
  const shutdown = async (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    const clean = await stopAll(running, logger);
    process.exit(clean ? code : 1);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => void shutdown(signal, 0));
  }

  try {
    const config = await resolveSecrets(baseConfig);
    let databaseUrl = config.DATABASE_URL;
    if (!databaseUrl) {
      running.embedded = await startEmbeddedPostgres(config.DATA_DIR, logger);
      databaseUrl = running.embedded.url;
    }
    await migrate(databaseUrl, logger);
    running.pool = await createDatabasePool(databaseUrl);
    const owner = await seedFirstOwner(running.pool, config, logger);
    // Only an interactive terminal is shown the password; a piped or collected stderr (where the banner
    // goes) gets a file's path.
    const firstAdmin = await handOverFirstPassword(owner, {
      dataDir: config.DATA_DIR,
      // Undefined, not false, on a pipe (whatever its type says): falsy either way.
      interactive: process.stderr.isTTY,
      logger,
    });
    if (config.REDIS_URL) running.redis = createRedis(config.REDIS_URL, logger);
    running.storage = createStorage(config);
    const registry = new Registry();
    const push = await startPush({
      config,
      pool: running.pool,
      databaseUrl,
      redis: running.redis,
      logger,
      registry,
    });
    running.push = push;
    const intercom = intercomOnceStarted();
    running.eventSourcing = await startEventSourcing({
      config,
      databaseUrl,
      pool: running.pool,
      logger,
      registry,
      processorPorts: {
        broadcast: (...post) => push.broadcaster.broadcast(...post),
        csatNotes: intercomCsatNotes(intercom.get),
        complaintNotes: intercomComplaintNotes(running.pool, intercom.get),
      },
    });
    running.scheduler = startScheduledPublisher({
      pool: running.pool,
      store: running.eventSourcing.store,
      connectionString: databaseUrl,
      logger,
    });
    running.retention = startRetentionJob({
      pool: running.pool,
      connectionString: databaseUrl,
      logger,
      registry,
      retentionDays: config.DATA_RETENTION_DAYS,
      // Only the local adapter leaves temporary files; S3 multipart leftovers are the bucket's lifecycle.
      uploadDir: config.S3_BUCKET ? undefined : config.UPLOAD_DIR,
    });
    running.support = await startSupport({
      config,
      pool: running.pool,
      databaseUrl,
      redis: running.redis,
      logger,
      stamps: running.eventSourcing.changes,
      registry,
      dispatcher: push.dispatcher,
      // The sandbox (no SUPPORT_ACCESS_TOKEN) keeps its records there, so a restart keeps the chat history.
      dataDir: config.DATA_DIR,
    });
    intercom.set(running.support.intercom);
    await push.startWorkers(running.eventSourcing.store, running.support);
    running.app = await assembleApp({
      config,
      pool: running.pool,
      redis: running.redis,
      logger,
      version,
      registry,
      store: running.eventSourcing.store,
      waiter: running.eventSourcing.waiter,
      projections: running.eventSourcing.projectionNames,
      storage: running.storage,
      support: running.support,
      push,
      changes: running.eventSourcing.changes,
    });
    const listeningAt = await running.app.listen({ host: config.HOST, port: config.PORT });
    running.support.listening(listeningAt);
    printBanner(config, running.app, firstAdmin);
  } catch (error) {
    logger.fatal({ err: error }, 'startup failed');
    await shutdown('startup failed', 1);
  }
}

await main();
