import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { ResolvedConfig } from '../config.ts';
import { instanceConnectionName, type Instances, startHeartbeat } from '../db/instances.ts';
import { createLeaderLocks, type LeaderLocks } from '../db/leader-lock.ts';
import { createNotifications, type Notifications } from '../db/notifications.ts';
import type { DatabasePool } from '../db/pool.ts';
import { buildOpsApp } from '../http/ops-app.ts';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import { startScheduledPublisher } from '../jobs/publish-scheduled.ts';
import { startErasures } from './erasures.ts';
import { startRetentionJob } from '../jobs/retention.ts';
import type { Processor } from '../processors/processor.ts';
import type { Projection } from '../projections/projection.ts';
import { type AppParts, assembleApp } from './app.ts';
import { type EventSourcing, startEventSourcing } from './event-sourcing.ts';
import {
  intercomComplaintNotes,
  intercomContactTelemetry,
  intercomCsatNotes,
  intercomOnceStarted,
} from './provider-notes.ts';
import { type PushOptions, type PushServices, startPush } from './push.ts';
import { readinessChecks } from './readiness.ts';
import { createStopStack } from './stop-stack.ts';
import { type SupportOptions, type SupportServices, startSupport } from './support.ts';

/** What a process does: `api` serves HTTP, `worker` runs projections, processors and jobs. */
export type Role = 'api' | 'worker';

/** Connections each role's pools take (docs/scale-out.md): the read pool, the event store's, the queue's. */
export const POOL_SIZES: Record<'api' | 'worker' | 'both', { pool: number; store: number; queue: number }> = {
  api: { pool: 10, store: 4, queue: 2 },
  worker: { pool: 6, store: 6, queue: 4 },
  both: { pool: 10, store: 8, queue: 4 },
};

export const poolSizesOf = (roles: readonly Role[]) =>
  POOL_SIZES[roles.length === 2 ? 'both' : (roles[0] ?? 'both')];

export interface ServiceOptions {
  readonly config: ResolvedConfig;
  readonly roles: readonly Role[];
  /** This process's name in logs, metrics and the heartbeat (`api-2`, `worker`, …). */
  readonly name: string;
  readonly databaseUrl: string;
  readonly pool: DatabasePool;
  readonly redis?: Redis | undefined;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly storage: ObjectStorage;
  readonly version?: string;
  /** What `/metrics` answers when it is more than `registry` (a cluster child: every process's). */
  readonly metricsExposition?: () => Promise<string>;
  /** Where the Intercom sandbox keeps its records (npm start: DATA_DIR); in memory without. */
  readonly dataDir?: string | undefined;
  // What tests and benchmarks set; a service started by main.ts takes the defaults.
  readonly projections?: readonly Projection[];
  readonly processors?: readonly Processor[];
  readonly push?: Pick<PushOptions, 'runWorkers' | 'superviseIntervalSeconds' | 'retry'>;
  readonly support?: Pick<SupportOptions, 'client' | 'sandbox' | 'runInbox' | 'sandboxInProduction'>;
  readonly clock?: () => number;
  readonly pace?: AppParts['pace'];
  /** False: no heartbeat (tests of one process that count statements). Default true. */
  readonly heartbeat?: boolean;
  /** False: no schedule, retention or erasure job even with the worker role (tests that start their own). */
  readonly jobs?: boolean;
}

export interface RunningService {
  /** The API (api role), or only health and metrics (a worker alone). Not listening yet. */
  readonly app: FastifyInstance;
  readonly eventSourcing: EventSourcing;
  readonly support: SupportServices;
  readonly push: PushServices;
  readonly notifications: Notifications;
  readonly locks: LeaderLocks | null;
  readonly instances: Instances | null;
  /** Tells the parts that need it where the service listens (the sandbox's webhooks, attachment links). */
  listening(url: string): void;
  /**
   * Stops every part in the reverse order of their start (src/wiring/stop-stack.ts); each step runs even
   * if one before failed. Resolves false if one failed.
   */
  stop(): Promise<boolean>;
}

/**
 * The service's parts for this process's roles (docs/scale-out.md), on the database, Redis and storage
 * the caller made: the one composition that main.ts, the test harness and the benchmarks share.
 * - both roles (`npm start`): everything in one process;
 * - `api`: HTTP, the read caches and the change feed, commands that append; no projection, processor,
 *   job or push worker runs, and the webhook inbox is woken in a worker through PostgreSQL;
 * - `worker`: projections, processors, the webhook inbox, the reconciler, schedules, retention and the
 *   push workers; it serves health and metrics only.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config, pool, databaseUrl, logger, registry, redis } = options;
  const worker = options.roles.includes('worker');
  const api = options.roles.includes('api');
  const sizes = poolSizesOf(options.roles);
  const stack = createStopStack(logger);
  try {
    const id = randomUUID();
    const notifications = createNotifications({
      connectionString: databaseUrl,
      logger,
      applicationName: instanceConnectionName(id),
    });
    stack.push('notifications', () => notifications.close());
    notificationMetrics(registry, notifications);
    const locks = worker
      ? createLeaderLocks({
          connectionString: databaseUrl,
          logger,
          applicationName: `support-channel-service:locks:${options.name}`.slice(0, 63),
        })
      : null;
    if (locks !== null) stack.push('leader locks', () => locks.close());
    const instances =
      options.heartbeat === false
        ? null
        : startHeartbeat({
            pool,
            logger,
            registry,
            id,
            self: { name: options.name, roles: options.roles, sharesState: redis !== undefined },
          });
    if (instances !== null) stack.push('heartbeat', () => instances.stop());

    const push = await startPush({
      config,
      pool,
      databaseUrl,
      redis,
      logger,
      registry,
      supervise: worker,
      maxConnections: sizes.queue,
      ...options.push,
      runWorkers: worker && options.push?.runWorkers !== false,
    });
    stack.push('push queue', () => push.close());
    const intercom = intercomOnceStarted();
    const eventSourcing = await startEventSourcing({
      config,
      databaseUrl,
      pool,
      logger,
      registry,
      notifications,
      locks,
      storePoolSize: sizes.store,
      ...(options.projections ? { projections: options.projections } : {}),
      ...(options.processors ? { processors: options.processors } : {}),
      processorPorts: {
        broadcast: (...post) => push.broadcaster.broadcast(...post),
        csatNotes: intercomCsatNotes(intercom.get),
        complaintNotes: intercomComplaintNotes(pool, intercom.get),
        contactTelemetry: intercomContactTelemetry(pool, intercom.get),
      },
    });
    stack.push('projections, processors and event store', () => eventSourcing.stop());
    const support = await startSupport({
      config,
      pool,
      locks,
      notifications,
      redis,
      logger,
      stamps: eventSourcing.changes,
      registry,
      dispatcher: push.dispatcher,
      dataDir: options.dataDir,
      ...(instances === null ? {} : { liveInstances: () => instances.live() }),
      ...options.support,
    });
    stack.push('support chat', () => support.close());
    intercom.set(support.intercom);
    await push.startWorkers(eventSourcing.store, support);
    stack.push('push workers', () => push.stopWorkers());
    if (locks !== null && options.jobs !== false) {
      const scheduler = startScheduledPublisher({ pool, store: eventSourcing.store, locks, logger });
      stack.push('schedule job', () => scheduler.stop());
      const retention = startRetentionJob({
        pool,
        locks,
        logger,
        registry,
        retentionDays: config.DATA_RETENTION_DAYS,
        // Only the local adapter leaves temporary files; S3 multipart leftovers are the bucket's lifecycle.
        uploadDir: config.S3_BUCKET ? undefined : config.UPLOAD_DIR,
      });
      stack.push('retention job', () => retention.stop());
      const erasures = startErasures({
        pool,
        eventSourcing,
        notifications,
        push,
        support,
        storage: options.storage,
        locks,
        logger,
      });
      stack.push('erasure job', () => erasures.stop());
    }
    // Other processes' changes are heard before the first request is answered.
    await notifications.whenListening(5_000);
    const readiness = readinessChecks({
      pool,
      store: eventSourcing.store,
      projections: eventSourcing.projectionNames,
      notifications,
      locks,
      instances: instances ?? undefined,
    });
    const app = api
      ? await assembleApp({
          config,
          pool,
          redis,
          logger,
          registry,
          store: eventSourcing.store,
          waiter: eventSourcing.waiter,
          readiness,
          storage: options.storage,
          support,
          push,
          changes: eventSourcing.changes,
          ...(options.version === undefined ? {} : { version: options.version }),
          ...(options.metricsExposition === undefined
            ? {}
            : { metricsExposition: options.metricsExposition }),
          ...(options.clock ? { clock: options.clock } : {}),
          ...(options.pace ? { pace: options.pace } : {}),
        })
      : await buildOpsApp({ logger, registry, readiness });
    // Started last, so stopped first: new requests get 503 while those in hand finish on the parts below.
    stack.push('http server', () => app.close());
    return {
      app,
      eventSourcing,
      support,
      push,
      notifications,
      locks,
      instances,
      listening: (url) => {
        support.listening(url);
      },
      stop: () => stack.stopAll(),
    };
  } catch (error) {
    await stack.stopAll();
    throw error;
  }
}

function notificationMetrics(registry: Registry, notifications: Notifications): void {
  new Gauge({
    name: 'notifications_listening',
    help: '1 while this process hears the other processes (PostgreSQL LISTEN: read changes, inbox wake-ups)',
    registers: [registry],
    collect() {
      this.set(notifications.listening() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'notifications_connections',
    help: 'LISTEN connections made since the process started: more than 1 means it lost and regained one',
    registers: [registry],
    collect() {
      this.set(notifications.connections());
    },
  });
}
