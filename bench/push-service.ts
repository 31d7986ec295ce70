import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { envSchema, type ResolvedConfig } from '../src/config.ts';
import { migrate } from '../src/db/migrate.ts';
import { createDatabasePool } from '../src/db/pool.ts';
import { mintSessionToken } from '../src/dev/token.ts';
import { createLogger } from '../src/http/logger.ts';
import { localStorage } from '../src/integrations/storage/local.ts';
import { updateNotificationSettings } from '../src/push/notification-settings.ts';
import { assembleApp } from '../src/wiring/app.ts';
import { startEventSourcing } from '../src/wiring/event-sourcing.ts';
import { startPush } from '../src/wiring/push.ts';
import {
  intercomComplaintNotes,
  intercomCsatNotes,
  intercomOnceStarted,
} from '../src/wiring/provider-notes.ts';
import { startSupport } from '../src/wiring/support.ts';
import type { FakesEnv } from './push-fakes.ts';
import { assertAnswers, BENCH_USER_ID, databaseUrl, type Service, temporaryDirectory } from './targets.ts';
import type { Teardown } from './teardown.ts';

/**
 * The service of the push bench: `startService` of targets.ts, step for step (the same production
 * settings, the same composition as main.ts: the push queue and its workers, the event sourcing with the
 * post-pushes processor, the support chat with the Intercom sandbox, the app), with the senders pointed
 * at the loopback fakes. startService builds its configuration from a fixed object and takes no
 * settings of its own, so it cannot be told FCM_BASE_URL; this copy can. Keep the two in step.
 */

export interface PushServiceOptions {
  readonly logLevel: string;
  readonly poolSize: number | undefined;
  readonly fakes: FakesEnv;
  /** PUSH_WORKERS; the config's default (4) when undefined. */
  readonly pushWorkers: number | undefined;
  /** MESSENGER_MESSAGES_PER_SECOND; the config's default (25) when undefined. */
  readonly messengerPerSecond: number | undefined;
}

export interface PushService extends Service {
  readonly config: ResolvedConfig;
}

const SEEDED = { chatMessages: false, ticketUpdates: true, systemNotices: false };
const TOKEN_TTL_SECONDS = 3600;

function pushBenchConfig(options: PushServiceOptions): ResolvedConfig {
  const secret = () => randomBytes(32).toString('base64url');
  const optional = (name: string, value: number | undefined) =>
    value === undefined ? {} : { [name]: String(value) };
  const parsed = envSchema.parse({
    // targets.ts's benchConfig
    NODE_ENV: 'production',
    LOG_LEVEL: options.logLevel,
    REQUIRE_JWT_EXP: '1',
    CORS_ORIGINS: 'https://app.example.com',
    API_RATE_LIMIT_PER_MINUTE: '1000000',
    ADMIN_LOGIN_MAX_FAILURES: '1000',
    JWT_SECRET: secret(),
    ADMIN_SESSION_SECRET: secret(),
    FILE_URL_SECRET: secret(),
    // The push bench's own: the fakes (production's boot guards refuse these two addresses; the bench,
    // like startService, does not run the guards), and the pace and concurrency when asked.
    ...options.fakes,
    ...optional('PUSH_WORKERS', options.pushWorkers),
    ...optional('MESSENGER_MESSAGES_PER_SECOND', options.messengerPerSecond),
  });
  return parsed as ResolvedConfig;
}

export async function startPushService(
  options: PushServiceOptions,
  teardown: Teardown,
): Promise<PushService> {
  const config = pushBenchConfig(options);
  const logger = createLogger(config.LOG_LEVEL);
  const url = await databaseUrl(teardown, logger);
  await migrate(url, logger);
  const pool = await createDatabasePool(
    url,
    options.poolSize === undefined ? {} : { maximumPoolSize: options.poolSize },
  );
  teardown.add('database pool', async () => {
    // As startService: the requests autocannon abandoned still run; let them finish first.
    for (let waitedMs = 0; waitedMs < 5_000; waitedMs += 20) {
      const { acquiredConnections, waitingClients } = pool.state();
      if (acquiredConnections === 0 && waitingClients === 0) break;
      await sleep(20);
    }
    await pool.end();
  });
  await updateNotificationSettings(pool, BENCH_USER_ID, SEEDED);

  const storage = localStorage(await temporaryDirectory('svc-bench-uploads-', teardown));
  const push = await startPush({ config, pool, databaseUrl: url, logger });
  const intercom = intercomOnceStarted();
  const eventSourcing = await startEventSourcing({
    config,
    databaseUrl: url,
    pool,
    logger,
    processorPorts: {
      broadcast: (...post) => push.broadcaster.broadcast(...post),
      csatNotes: intercomCsatNotes(intercom.get),
      complaintNotes: intercomComplaintNotes(pool, intercom.get),
    },
  });
  teardown.add('push queue and workers', () => push.close());
  teardown.add('projections and event store', () => eventSourcing.stop());
  const support = await startSupport({
    config,
    pool,
    databaseUrl: url,
    logger,
    stamps: eventSourcing.changes,
    sandboxInProduction: true,
    dispatcher: push.dispatcher,
  });
  intercom.set(support.intercom);
  await push.startWorkers(eventSourcing.store, support);
  teardown.add('support chat', () => support.close());
  const app = await assembleApp({
    config,
    pool,
    logger,
    store: eventSourcing.store,
    waiter: eventSourcing.waiter,
    projections: eventSourcing.projectionNames,
    storage,
    support,
    push,
    changes: eventSourcing.changes,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || !address) throw new Error('server has no TCP address');
  const base = `http://127.0.0.1:${address.port}`;
  support.listening(base);
  teardown.add('service app', () => app.close());

  const { token } = mintSessionToken(config.JWT_SECRET, BENCH_USER_ID, TOKEN_TTL_SECONDS);
  const target = { url: `${base}/api/settings/notifications`, headers: { authorization: `Bearer ${token}` } };
  await assertAnswers(target, (body) => isDeepStrictEqual(body, SEEDED));
  return {
    config,
    target,
    base,
    pool,
    database: process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL',
    poolSize: pool.configuration.maxPoolSize,
    eventSourcing,
    support,
    sessionToken: (userId) => mintSessionToken(config.JWT_SECRET, userId, TOKEN_TTL_SECONDS).token,
  };
}
