import { hkdfSync } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { type AdminSessions, adminSessions } from '../auth/admin-sessions.ts';
import { type AdminTokens, adminTokens } from '../auth/admin-tokens.ts';
import type { ChatDeps } from '../chat/conversations.ts';
import type { UnreadDeps } from '../chat/unread.ts';
import type { IntercomSandbox } from '../integrations/intercom/sandbox/index.ts';
import type { CommentPostingPorts } from '../commands/comment-posting.ts';
import type { PostMediaPorts } from '../commands/posts.ts';
import type { ResolvedConfig } from '../config.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { EventStore } from '../events/store/port.ts';
import { commentImages } from '../files/comment-images.ts';
import type { UploadCaps } from '../files/inspect.ts';
import { postMedia } from '../files/post-media.ts';
import { type LoginThrottle, loginThrottle } from '../integrations/rate-limiters/login-throttle.ts';
import { slowMode } from '../integrations/rate-limiters/slow-mode.ts';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import type { ProjectionWaiter } from '../projections/progress.ts';
import { createReadVersions, type LocalProjections, type ReadVersions } from '../projections/read-version.ts';
import { channelsForUser } from '../queries/channels.ts';
import { createPostingContextLookup } from '../queries/comments.ts';

/** What the routes use of the support services that wiring/support.ts starts. */
export interface SupportParts extends Pick<ChatDeps, 'intercom' | 'contacts' | 'cache'> {
  /** Verifies `X-Hub-Signature`; null when none is configured, and then every webhook is refused. */
  readonly webhookSecret: string | null;
  /** The loopback stand-in for Intercom (never in production), which devtools drive. */
  readonly sandbox: IntercomSandbox | null;
  /** Told after each stored webhook, so this replica's worker processes it at once. */
  readonly inbox: { wake(): void };
  /** The service's own address, once it listens: the base of attachment links when PUBLIC_BASE_URL is unset. */
  serviceUrl(): string;
}

/** The parts the composition root (main.ts, the test harness, the benchmarks) hands to `buildApp`. */
export interface AppDependencies {
  readonly config: ResolvedConfig;
  readonly pool: DatabasePool;
  readonly logger: Logger;
  readonly redis?: Redis | undefined;
  readonly version?: string;
  /** Where the app's metrics go; the projection runner registers its own there too. */
  readonly registry?: Registry;
  readonly store: EventStore;
  readonly waiter: ProjectionWaiter;
  /** Where uploaded file bytes go. */
  readonly storage: ObjectStorage;
  /** The projections this service runs: readiness reports theirs. */
  readonly projections: readonly string[];
  /** Intercom (or its sandbox), the read cache, the contact mapping and the webhook inbox. */
  readonly support: SupportParts;
  /** The projections this process runs: caches key on their progress without a query (decision 014). */
  readonly localProjections?: LocalProjections | undefined;
}

/**
 * The one dependency object of the routes, on `app.services`: made once in `buildApp`, read by every
 * route plugin, so nothing is handed down from plugin to plugin.
 */
export interface HttpServices extends Omit<AppDependencies, 'localProjections' | 'version' | 'registry'> {
  /** Upload caps in bytes, from the MAX_*_MB settings. */
  readonly uploadCaps: UploadCaps;
  /** The read versions the feed and comment caches key on. */
  readonly versions: ReadVersions;
  /** The support chat's reads and writes (and the channels' unread counts, for the badges). */
  readonly chat: ChatDeps & UnreadDeps;
  readonly commentPosting: CommentPostingPorts;
  readonly postMedia: PostMediaPorts;
  readonly admin: {
    readonly tokens: AdminTokens;
    readonly sessions: AdminSessions;
    readonly throttle: LoginThrottle;
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    readonly services: HttpServices;
  }
}

const MIB = 1024 * 1024;

/** A key of its own for one purpose, from a secret the service holds (so no new setting is needed). */
const deriveKey = (secret: string, purpose: string): string =>
  Buffer.from(hkdfSync('sha256', secret, '', purpose, 32)).toString('hex');

export function createHttpServices(deps: AppDependencies): HttpServices {
  const { config, pool, store, storage, support } = deps;
  const uploadCaps = {
    file: config.MAX_FILE_MB * MIB,
    image: config.MAX_IMAGE_MB * MIB,
    video: config.MAX_VIDEO_MB * MIB,
  };
  const publicBaseUrl = config.PUBLIC_BASE_URL;
  const tokens = adminTokens(config.ADMIN_SESSION_SECRET, config.ADMIN_SESSION_TTL_MINUTES);
  return {
    config,
    pool,
    logger: deps.logger,
    redis: deps.redis,
    store,
    waiter: deps.waiter,
    storage,
    projections: deps.projections,
    support,
    uploadCaps,
    versions: createReadVersions(pool, { local: deps.localProjections }),
    chat: {
      pool,
      intercom: support.intercom,
      contacts: support.contacts,
      cache: support.cache,
      logger: deps.logger,
      files: {
        secret: config.FILE_URL_SECRET,
        publicBaseUrl: () => publicBaseUrl ?? support.serviceUrl(),
        ttlSeconds: config.FILE_URL_TTL_MINUTES * 60,
      },
      channelsUnread: async (userId) =>
        Object.fromEntries((await channelsForUser(pool, userId)).map((c) => [c.id, c.unread])),
    },
    commentPosting: {
      store,
      postingContext: createPostingContextLookup(pool),
      slowMode: slowMode(deps.redis),
      images: commentImages(storage, uploadCaps.image),
      hashKey: deriveKey(config.FILE_URL_SECRET, 'comment-rejection-hash'),
    },
    postMedia: { store, media: postMedia(storage, uploadCaps) },
    admin: {
      tokens,
      sessions: adminSessions(pool, tokens),
      throttle: loginThrottle({
        maxFailures: config.ADMIN_LOGIN_MAX_FAILURES,
        windowSeconds: config.ADMIN_LOGIN_WINDOW_MINUTES * 60,
        lockSeconds: config.ADMIN_LOGIN_LOCK_MINUTES * 60,
        redis: deps.redis,
      }),
    },
  };
}
