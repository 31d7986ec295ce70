import { existsSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ResolvedConfig } from '../config.ts';
import { type JobQueue, startJobQueue } from '../db/job-queue.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { SupportCache } from '../chat/support-cache.ts';
import type { EventStore } from '../events/store/port.ts';
import { createMobileSender, validateServiceAccount } from '../integrations/push/fcm.ts';
import type { MessengerSender, MobileSender } from '../integrations/push/port.ts';
import { createMessengerSender } from '../integrations/push/telegram.ts';
import type { PushMetrics } from '../jobs/push-context.ts';
import { type PushWorkers, startPushWorkers } from '../jobs/push-workers.ts';
import { readOrKeepLast } from '../lib/metrics.ts';
import { type ProviderCalls, providerCalls } from '../lib/provider-calls.ts';
import type { PushContent } from '../push/content.ts';
import type { PushDispatcher } from '../push/dispatcher.ts';
import { createPresence, type Presence } from '../push/presence.ts';
import { createQueueDispatcher, type PushBroadcaster } from '../push/queue-dispatcher.ts';
import { createPushQueues, PUSH_QUEUES } from '../push/queues.ts';

export interface PushServices {
  readonly presence: Presence;
  /** For the support inbox: replies and ticket changes, one user each. */
  readonly dispatcher: PushDispatcher;
  /** For posts published with `notify` and system notices. */
  readonly broadcaster: PushBroadcaster;
  readonly queue: JobQueue;
  /**
   * Works the push queues here from now on: the workers remove refused devices through the store, and
   * read previews (PUSH_SHOW_PREVIEW) through the support cache when one is given.
   */
  startWorkers(store: EventStore, support?: { readonly cache: SupportCache }): Promise<void>;
  /** Stops this replica's workers (after the job in hand); the queue stays, for pushes queued here. */
  stopWorkers(): Promise<void>;
  close(): Promise<void>;
}

export interface PushOptions {
  readonly config: ResolvedConfig;
  readonly pool: DatabasePool;
  readonly databaseUrl: string;
  readonly redis?: Redis | undefined;
  readonly logger: Logger;
  readonly registry?: Registry;
  /** False: only queue pushes here, and leave the sending to other replicas (tests of crashes use it). */
  readonly runWorkers?: boolean;
  /**
   * False: leave the queue's upkeep (expired jobs reclaimed, queues maintained) to the replicas that work
   * it; a process that only queues pushes (the api role) keeps none of its timers. Default true.
   */
  readonly supervise?: boolean;
  /** Connections of the queue's own pool (4 by default). */
  readonly maxConnections?: number;
  /** Expired jobs are reclaimed this often (seconds; 60 by default, tests of crashes use 1). */
  readonly superviseIntervalSeconds?: number;
  /** How often workers look for jobs no NOTIFY announced (seconds; 30 by default, tests of crashes use 2). */
  readonly backstopPollSeconds?: number;
  /** Tries per device, and the waits between them (tests shorten them). */
  readonly retry?: {
    readonly maxAttempts: number;
    readonly baseDelayMs: number;
    readonly maxDelayMs: number;
  };
}

class PushConfigError extends Error {}

/** The newest message of a chat push's conversation, as its list row shows it (plain, one line). */
const chatPreviews =
  (cache: SupportCache) =>
  async (content: PushContent): Promise<string | undefined> => {
    if (content.kind !== 'chat') return undefined;
    const read = await cache.conversation(content.conversationId);
    return read.value.found ? read.value.derived.lastMessage?.preview : undefined;
  };

/**
 * The mobile sender, or null when it is not configured (spec: skipped and logged). A service-account
 * file that exists but is no credential stops a production start; elsewhere it is logged and skipped.
 */
function mobileSender(config: ResolvedConfig, logger: Logger, calls?: ProviderCalls): MobileSender | null {
  const path = config.PUSH_SERVICE_ACCOUNT;
  if (config.FCM_BASE_URL !== undefined) {
    logger.info({ url: config.FCM_BASE_URL }, 'mobile pushes go to a loopback FCM (FCM_BASE_URL)');
    return createMobileSender({
      serviceAccountPath: path ?? '',
      baseUrl: config.FCM_BASE_URL,
      logger,
      calls,
    });
  }
  if (path === undefined) {
    logger.info('PUSH_SERVICE_ACCOUNT is not set: mobile pushes are skipped');
    return null;
  }
  if (!existsSync(path)) {
    logger.warn({ path }, 'PUSH_SERVICE_ACCOUNT names no file: mobile pushes are skipped');
    return null;
  }
  const check = validateServiceAccount(path);
  if (!check.ok) {
    if (config.NODE_ENV === 'production') {
      throw new PushConfigError(
        `PUSH_SERVICE_ACCOUNT (${path}) is not a usable service account: ${check.reason}`,
      );
    }
    logger.warn(
      { path, reason: check.reason },
      'PUSH_SERVICE_ACCOUNT is not a usable service account: mobile pushes are skipped',
    );
    return null;
  }
  return createMobileSender({ serviceAccountPath: path, logger, calls });
}

function messengerSender(
  config: ResolvedConfig,
  logger: Logger,
  calls?: ProviderCalls,
): MessengerSender | null {
  if (config.MESSENGER_BOT_TOKEN === undefined) {
    logger.info('MESSENGER_BOT_TOKEN is not set: messenger pushes are skipped');
    return null;
  }
  return createMessengerSender({
    token: config.MESSENGER_BOT_TOKEN,
    ...(config.MESSENGER_API_ROOT === undefined ? {} : { apiRoot: config.MESSENGER_API_ROOT }),
    logger,
    calls,
  });
}

function pushMetrics(registry: Registry | undefined, queue: JobQueue, logger: Logger): PushMetrics {
  const registers = registry === undefined ? [] : [registry];
  if (registry !== undefined) {
    const depth = new Gauge({
      name: 'push_queue_jobs',
      help: 'Push jobs by queue and state (queued: ready or deferred; active: being worked)',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        await readOrKeepLast(logger, 'the push queues', async () => {
          for (const q of await queue.getQueues(Object.values(PUSH_QUEUES))) {
            depth.set({ queue: q.name, state: 'queued' }, q.queuedCount);
            depth.set({ queue: q.name, state: 'active' }, q.activeCount);
          }
        });
      },
    });
  }
  return {
    deliveries: new Counter({
      name: 'push_deliveries_total',
      help: 'Push deliveries by platform and outcome (sent, failed, refused, removed, muted, online, not_configured)',
      labelNames: ['platform', 'outcome'],
      registers,
    }),
    providerSeconds: new Histogram({
      name: 'push_provider_request_seconds',
      help: 'How long one push service call took (an FCM sendEach, a Telegram sendMessage)',
      labelNames: ['provider'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
  };
}

/**
 * The push queue, the senders and who is polling; `startWorkers` adds this replica's workers once the
 * event store runs (the post processor needs the queue first, the workers need the store).
 */
export async function startPush(options: PushOptions): Promise<PushServices> {
  const { config, logger } = options;
  const calls = options.registry === undefined ? undefined : providerCalls(options.registry);
  const mobile = mobileSender(config, logger, calls);
  const messenger = messengerSender(config, logger, calls);
  const presence = createPresence({ redis: options.redis, logger, windowMs: config.PUSH_ONLINE_WINDOW_MS });
  let queue: JobQueue;
  try {
    queue = await startJobQueue({
      connectionString: options.databaseUrl,
      logger,
      supervise: options.supervise ?? true,
      ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
      ...(options.superviseIntervalSeconds === undefined
        ? {}
        : { superviseIntervalSeconds: options.superviseIntervalSeconds }),
    });
    await createPushQueues(queue);
  } catch (error) {
    // Nothing started may linger: the senders' apps and sockets, the presence timer.
    await Promise.allSettled([presence.close(), mobile?.close(), messenger?.close()]);
    throw error;
  }
  const metrics = pushMetrics(options.registry, queue, logger);
  const dispatcher = createQueueDispatcher(queue, { showPreview: config.PUSH_SHOW_PREVIEW });
  let workers: PushWorkers | null = null;
  return {
    presence,
    dispatcher,
    broadcaster: dispatcher,
    queue,
    async startWorkers(store, support) {
      if (options.runWorkers === false || workers !== null) return;
      workers = await startPushWorkers(
        {
          pool: options.pool,
          store,
          boss: queue,
          logger,
          presence,
          onlineWindowMs: config.PUSH_ONLINE_WINDOW_MS,
          mobile,
          messenger,
          wording: {
            showPreview: config.PUSH_SHOW_PREVIEW,
            botUsername: config.MESSENGER_BOT_USERNAME,
            linkBase: config.MESSENGER_LINK_BASE,
          },
          messengerPerSecond: config.MESSENGER_MESSAGES_PER_SECOND,
          retry: options.retry ?? { maxAttempts: 5, baseDelayMs: 2_000, maxDelayMs: 300_000 },
          metrics,
          previewOf: support === undefined ? undefined : chatPreviews(support.cache),
        },
        {
          mobileConcurrency: config.PUSH_WORKERS,
          ...(options.backstopPollSeconds === undefined
            ? {}
            : { backstopPollSeconds: options.backstopPollSeconds }),
        },
      );
    },
    async stopWorkers() {
      const running = workers;
      workers = null;
      await running?.stop();
    },
    async close() {
      await workers?.stop();
      workers = null;
      await queue.stop({ graceful: true, timeout: 5_000 });
      await presence.close();
      await mobile?.close();
      await messenger?.close();
    },
  };
}
