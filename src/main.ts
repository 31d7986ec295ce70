import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { handOverFirstPassword, seedFirstOwner } from './auth/bootstrap.ts';
import { ConfigError, type Config, loadConfig, type ResolvedConfig } from './config.ts';
import { startEmbeddedPostgres } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { createDatabasePool, type DatabasePool } from './db/pool.ts';
import { resolveSecrets } from './dev/secrets.ts';
import { printBanner } from './wiring/banner.ts';
import {
  clusterMetrics,
  inCluster,
  processPlan,
  superviseChildren,
  tellListening,
} from './wiring/cluster.ts';
import { startSharedSandbox } from './wiring/shared-sandbox.ts';
import { poolSizesOf, startService } from './wiring/service.ts';
import { createStopStack, type StopStack } from './wiring/stop-stack.ts';
import { chooseLogFormat, createLogger, logDestination } from './http/logger.ts';
import { createRedis } from './integrations/redis.ts';
import { createStorage } from './integrations/storage/index.ts';
import { version } from './lib/version.ts';
import { freePort } from './lib/free-port.ts';

const SHUTDOWN_TIMEOUT_MS = 15_000;
// A supervisor drains its processes, each of which has SHUTDOWN_TIMEOUT_MS of its own.
const SUPERVISOR_SHUTDOWN_TIMEOUT_MS = 25_000;

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

/** The database the processes share: DATABASE_URL, or an embedded one under DATA_DIR. */
async function prepareDatabase(config: ResolvedConfig, logger: Logger, stack: StopStack) {
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    const embedded = await startEmbeddedPostgres(config.DATA_DIR, logger);
    stack.push('embedded postgres', () => embedded.stop());
    databaseUrl = embedded.url;
  }
  await migrate(databaseUrl, logger);
  return databaseUrl;
}

/** The first owner, made on a first development start, and where its password went (decision 012). */
async function firstOwner(pool: DatabasePool, config: ResolvedConfig, logger: Logger) {
  const owner = await seedFirstOwner(pool, config, logger);
  // Only an interactive terminal is shown the password; a piped or collected stderr (where the banner
  // goes) gets a file's path.
  return handOverFirstPassword(owner, {
    dataDir: config.DATA_DIR,
    // Undefined, not false, on a pipe (whatever its type says): falsy either way.
    interactive: process.stderr.isTTY,
    logger,
  });
}

/**
 * API_PROCESSES > 1: this process prepares what the processes share (the database, the secrets, the
 * first owner, in development the Intercom sandbox) and supervises them (src/wiring/cluster.ts).
 */
async function supervise(config: ResolvedConfig, logger: Logger, stack: StopStack): Promise<void> {
  // The processes must share one port: with PORT=0 one is chosen here for all of them.
  const port = config.PORT === 0 ? await freePort(config.HOST) : config.PORT;
  const databaseUrl = await prepareDatabase(config, logger, stack);
  const pool = await createDatabasePool(databaseUrl, { maximumPoolSize: 1 });
  const firstAdmin = await firstOwner(pool, config, logger).finally(() => pool.end());
  const shared: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    JWT_SECRET: config.JWT_SECRET,
    ADMIN_SESSION_SECRET: config.ADMIN_SESSION_SECRET,
    FILE_URL_SECRET: config.FILE_URL_SECRET,
    PORT: String(port),
  };
  if (!config.SUPPORT_ACCESS_TOKEN) {
    const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
    const sandbox = await startSharedSandbox(config, {
      port: 0,
      webhookUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}/webhooks/support`,
      logger,
    });
    stack.push('intercom sandbox', () => sandbox.sandbox.close());
    Object.assign(shared, sandbox.settings);
  }
  if (!config.REDIS_URL) {
    logger.warn('API_PROCESSES > 1 without REDIS_URL: the processes report not ready until it is set');
  }
  const plan = processPlan(config);
  const supervisor = superviseChildren(plan, shared, logger);
  stack.push('processes', () => supervisor.stop());
  await supervisor.started;
  printBanner(config, port, firstAdmin, plan.map((p) => p.name).join(', '));
}

/** One process of the service: its roles' parts, listening on PORT. */
async function serve(config: ResolvedConfig, name: string, logger: Logger, stack: StopStack): Promise<void> {
  const databaseUrl = await prepareDatabase(config, logger, stack);
  const pool = await createDatabasePool(databaseUrl, {
    maximumPoolSize: config.DATABASE_POOL_SIZE ?? poolSizesOf(config.ROLES).pool,
  });
  stack.push('database pool', () => pool.end());
  const firstAdmin = await firstOwner(pool, config, logger);
  const redis = config.REDIS_URL ? createRedis(config.REDIS_URL, logger) : undefined;
  if (redis) stack.push('redis', () => redis.quit());
  const storage = createStorage(config);
  stack.push('storage', () => storage.close());
  const registry = new Registry();
  registry.setDefaultLabels({ process: name });
  const service = await startService({
    config,
    roles: config.ROLES,
    name,
    databaseUrl,
    pool,
    redis,
    logger,
    registry,
    storage,
    version,
    // The sandbox (no SUPPORT_ACCESS_TOKEN) keeps its records there, so a restart keeps the chat history.
    dataDir: config.DATA_DIR,
    ...(inCluster() ? { metricsExposition: clusterMetrics(registry) } : {}),
  });
  // Its own parts stop in reverse within this step (the HTTP server first), before what it stands on.
  stack.push('service', () => service.stop());
  const { app } = service;
  const api = config.ROLES.includes('api');
  if (inCluster() && !api) {
    // The worker of API_PROCESSES: PORT is the API processes'; its health is its supervisor's business.
    tellListening(name);
    return;
  }
  // In a cluster every API process binds PORT itself (SO_REUSEPORT); the kernel spreads the connections.
  const listeningAt = await app.listen({
    host: config.HOST,
    port: config.PORT,
    ...(inCluster() ? { exclusive: true, reusePort: true } : {}),
  });
  service.listening(listeningAt);
  tellListening(name);
  if (inCluster()) logger.info({ url: listeningAt }, 'listening');
  else if (api) printBanner(config, portOf(app, config.PORT), firstAdmin, null);
  else logger.info({ url: listeningAt, roles: config.ROLES }, 'serving health and metrics only');
}

const portOf = (app: FastifyInstance, fallback: number): number => {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : fallback;
};

async function main(): Promise<void> {
  const baseConfig = readConfig();
  const supervising = baseConfig.API_PROCESSES > 1 && !inCluster();
  const name = supervising ? 'supervisor' : (baseConfig.PROCESS_NAME ?? baseConfig.ROLES.join('+'));
  const logFormat = chooseLogFormat(baseConfig.LOG_FORMAT, baseConfig.NODE_ENV, process.stdout.isTTY);
  const logger = createLogger(baseConfig.LOG_LEVEL, await logDestination(logFormat)).child({ process: name });
  // Each part is pushed right after it starts, so a stop undoes the start in reverse.
  const stack = createStopStack(logger);
  let stopping = false;

  // Handled here rather than by close-with-grace, which exits at once on a second signal: one Ctrl-C
  // under `npm start` reaches this process up to three times (the terminal, npm, scripts/node24.mjs), and
  // a cluster child gets the terminal's SIGINT and then its supervisor's SIGTERM. A second signal is
  // ignored, so the drain and the embedded database's stop finish; the timeout is the way out.
  const shutdown = async (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    setTimeout(
      () => {
        logger.error('shutdown timed out; exiting');
        process.exit(1);
      },
      supervising ? SUPERVISOR_SHUTDOWN_TIMEOUT_MS : SHUTDOWN_TIMEOUT_MS,
    ).unref();
    const clean = await stack.stopAll();
    process.exit(clean ? code : 1);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => void shutdown(signal, 0));
  }
  // A cluster child whose supervisor is gone (killed without a word) stops too.
  if (inCluster()) process.on('disconnect', () => void shutdown('supervisor gone', 0));

  try {
    const config = await resolveSecrets(baseConfig);
    if (supervising) await supervise(config, logger, stack);
    else await serve(config, name, logger, stack);
  } catch (error) {
    logger.fatal({ err: error }, 'startup failed');
    await shutdown('startup failed', 1);
  }
}

await main();
