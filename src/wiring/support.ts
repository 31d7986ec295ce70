import { hkdfSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ResolvedConfig } from '../config.ts';
import type { LeaderLocks } from '../db/leader-lock.ts';
import type { Notifications } from '../db/notifications.ts';
import type { DatabasePool } from '../db/pool.ts';
import { intercomBaseUrl } from '../integrations/intercom/base-url.ts';
import {
  createIntercomClient,
  type IntercomClient,
  type IntercomClientOptions,
} from '../integrations/intercom/client.ts';
import {
  type IntercomSandbox,
  type IntercomSandboxOptions,
  startIntercomSandbox,
} from '../integrations/intercom/sandbox/index.ts';
import type { PushDispatcher } from '../push/dispatcher.ts';
import { startProcessedEventsPruner } from '../jobs/prune-processed-events.ts';
import { type SupportInbox, startSupportInbox } from '../jobs/support-inbox.ts';
import { startSupportReconciler } from '../jobs/support-reconcile.ts';
import { type ContactMapping, contactMapping } from '../chat/contacts.ts';
import { supportMetrics } from '../chat/metrics.ts';
import { providerCalls } from '../lib/provider-calls.ts';
import type { ChangeStamps } from '../chat/stamps.ts';
import { createSupportCache, type SupportCache } from '../chat/support-cache.ts';
import { type SupportReads, supportReads } from '../chat/support-reads.ts';

export interface SupportServices {
  readonly intercom: IntercomClient;
  readonly contacts: ContactMapping;
  readonly cache: SupportCache;
  readonly reads: SupportReads;
  readonly dispatcher: PushDispatcher;
  /** Verifies `X-Hub-Signature`; null when none is configured, and then every webhook is refused. */
  readonly webhookSecret: string | null;
  /** The loopback stand-in for Intercom, when no access token is configured (never in production). */
  readonly sandbox: IntercomSandbox | null;
  readonly inbox: SupportInbox;
  /** Tells the sandbox where the service's webhook endpoint is, once the service listens. */
  listening(serviceUrl: string): void;
  /** The service's own address, once it listens: the base of attachment links when PUBLIC_BASE_URL is unset. */
  serviceUrl(): string;
  close(): Promise<void>;
}

export interface SupportOptions {
  readonly config: ResolvedConfig;
  readonly pool: DatabasePool;
  /**
   * This process's leader locks when it runs the support jobs (the worker role: the webhook inbox, the
   * processed-events pruner, the reconciler); null when they run elsewhere.
   */
  readonly locks: LeaderLocks | null;
  /** How a webhook stored here wakes the inbox of another process, and how this one's is woken. */
  readonly notifications?: Notifications;
  /** How many processes share the Intercom budget (the heartbeat's count). */
  readonly liveInstances?: () => number;
  readonly redis?: Redis | undefined;
  readonly logger: Logger;
  /** The change feed (of the event sourcing) the per-user caches key on (decision 022). */
  readonly stamps: ChangeStamps;
  /** Where the inbox depth is reported. */
  readonly registry?: Registry | undefined;
  /** Tests: client settings (short timeouts and waits). */
  readonly client?: Partial<Omit<IntercomClientOptions, 'baseUrl' | 'accessToken' | 'logger' | 'redis'>>;
  /**
   * Where the sandbox keeps its records (`<dataDir>/intercom-sandbox.json`), so a restart shows the same
   * chat history: `npm start` passes DATA_DIR. Unset (tests, benchmarks): in memory only.
   */
  readonly dataDir?: string | undefined;
  /** Tests: sandbox settings (webhook retry delay, search lag). */
  readonly sandbox?: Partial<Omit<IntercomSandboxOptions, 'accessToken' | 'clientSecret' | 'webhookUrl'>>;
  /** Where the inbox hands the pushes of replies and ticket changes (the push queue). */
  readonly dispatcher: PushDispatcher;
  /** Tests of the inbox itself run their own worker. Default: when this process runs the jobs. */
  readonly runInbox?: boolean;
  /**
   * Benchmarks run production settings against the sandbox (in this process, or at SUPPORT_BASE_URL in a
   * process of its own): only they set this.
   */
  readonly sandboxInProduction?: boolean;
}

/** Where a stored webhook wakes the support inbox of a worker in another process. */
const INBOX_CHANNEL = 'support_inbox';

/** The sandbox's records under DATA_DIR (decision 035). */
export const SANDBOX_RECORDS_FILE = 'intercom-sandbox.json';

/** Where Intercom reads come from and go to: Intercom itself, or the sandbox outside production. */
async function provider(options: SupportOptions) {
  const { config } = options;
  if (config.SUPPORT_ACCESS_TOKEN) {
    return {
      // A benchmark's processes with production settings share one sandbox in a process of their own.
      baseUrl:
        options.sandboxInProduction === true && config.SUPPORT_BASE_URL !== undefined
          ? config.SUPPORT_BASE_URL
          : intercomBaseUrl(config),
      accessToken: config.SUPPORT_ACCESS_TOKEN,
      webhookSecret: config.SUPPORT_CLIENT_SECRET ?? null,
      sandbox: null,
    };
  }
  if (config.NODE_ENV === 'production' && options.sandboxInProduction !== true) {
    throw new Error('SUPPORT_ACCESS_TOKEN is required in production: the sandbox is for development');
  }
  const accessToken = randomBytes(24).toString('base64url');
  // A stable secret of its own in development, so a configured SUPPORT_CLIENT_SECRET is not needed.
  const webhookSecret =
    config.SUPPORT_CLIENT_SECRET ??
    Buffer.from(hkdfSync('sha256', config.FILE_URL_SECRET, '', 'sandbox-webhook-secret', 32)).toString('hex');
  const recordsFile = options.dataDir === undefined ? undefined : join(options.dataDir, SANDBOX_RECORDS_FILE);
  const sandbox = await startIntercomSandbox({
    webhookRetryDelayMs: 5_000,
    ...options.sandbox,
    accessToken,
    clientSecret: webhookSecret,
    recordsFile,
    logger: options.logger,
  });
  options.logger.info(
    { url: sandbox.url, recordsFile: recordsFile ?? null, conversations: sandbox.state.conversations.size },
    'no SUPPORT_ACCESS_TOKEN: the Intercom sandbox stands in',
  );
  return { baseUrl: sandbox.url, accessToken, webhookSecret, sandbox };
}

/** Intercom (or its sandbox), the contact mapping, the read cache, the push dispatcher and the webhook inbox. */
export async function startSupport(options: SupportOptions): Promise<SupportServices> {
  const { config, pool, redis, logger } = options;
  const source = await provider(options);
  if (source.webhookSecret === null) {
    logger.warn('SUPPORT_CLIENT_SECRET is not set: every support webhook will be refused');
  }
  const intercom = createIntercomClient({
    budgetPerWindow: config.SUPPORT_CALLS_PER_WINDOW,
    ...options.client,
    baseUrl: source.baseUrl,
    accessToken: source.accessToken,
    logger,
    redis,
    ...(options.liveInstances === undefined ? {} : { liveInstances: options.liveInstances }),
    calls: options.registry ? providerCalls(options.registry) : undefined,
  });
  const cache = await createSupportCache({ intercom, logger, redis, ttlMs: config.SUPPORT_CACHE_TTL_MS });
  const { dispatcher, locks, notifications } = options;
  const worker =
    locks === null || options.runInbox === false
      ? null
      : startSupportInbox({ pool, logger, invalidator: cache, dispatcher });
  if (worker !== null) {
    // Webhooks stored by another process: heard at once, and looked for again after a reconnection.
    notifications?.listen(
      INBOX_CHANNEL,
      () => {
        worker.wake();
      },
      () => {
        worker.wake();
      },
    );
  }
  const inbox = {
    wake:
      worker !== null
        ? () => {
            worker.wake();
          }
        : () => void notifications?.notify(INBOX_CHANNEL, ''),
    stop: () => worker?.stop() ?? Promise.resolve(),
  };
  const pruner = locks === null ? null : startProcessedEventsPruner({ pool, locks, logger });
  const reconciler = locks === null ? null : startSupportReconciler({ intercom, cache, locks, logger });
  const metrics = options.registry ? supportMetrics(options.registry, pool, logger) : null;
  let ownUrl: string | null = null;
  return {
    intercom,
    contacts: contactMapping(pool, intercom, options.stamps),
    cache,
    reads: supportReads(pool, options.stamps),
    dispatcher,
    webhookSecret: source.webhookSecret,
    sandbox: source.sandbox,
    inbox,
    listening(serviceUrl) {
      ownUrl = serviceUrl.replace(/\/+$/, '');
      source.sandbox?.deliverWebhooksTo(`${ownUrl}/webhooks/support`);
    },
    serviceUrl() {
      if (ownUrl === null) throw new Error('the service is not listening yet');
      return ownUrl;
    },
    async close() {
      metrics?.unregister();
      await Promise.all([pruner?.stop(), reconciler?.stop()]);
      await inbox.stop();
      await cache.close();
      await source.sandbox?.close();
    },
  };
}
