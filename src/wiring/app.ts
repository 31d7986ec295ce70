import { buildApp } from '../http/app.ts';
import { hkdfSync } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { adminSessions } from '../auth/admin-sessions.ts';
import { adminTokens } from '../auth/admin-tokens.ts';
import type { ResolvedConfig } from '../config.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { EventStore } from '../events/store/port.ts';
import { commentImages } from '../files/comment-images.ts';
import { postMedia } from '../files/post-media.ts';
import { mediaLinkTokens } from '../files/signed-urls.ts';
import { mediaLinks } from '../http/media-links.ts';
import type { HttpServices, SupportParts } from '../http/services.ts';
import { loginThrottle } from '../integrations/rate-limiters/login-throttle.ts';
import { slowMode } from '../integrations/rate-limiters/slow-mode.ts';
import type { ReadinessCheck } from '../http/routes/health.ts';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import type { ProjectionWaiter } from '../projections/progress.ts';
import type { ReadChanges } from '../projections/changes.ts';
import { type PollPaceOptions, startPollPace } from '../http/poll-pace.ts';
import { createChannelsUnread } from '../queries/unread.ts';
import { createPostingContextLookup } from '../queries/comments.ts';

/** The running parts the composition root (main.ts, the test harness, the benchmarks) has made. */
export interface AppParts {
  readonly config: ResolvedConfig;
  readonly pool: DatabasePool;
  readonly logger: Logger;
  readonly redis?: Redis | undefined;
  readonly version?: string;
  /** Where the app's metrics go; the projection runner registers its own there too. */
  readonly registry?: Registry;
  /** What `/metrics` answers when it is more than `registry` (every process of a cluster). */
  readonly metricsExposition?: () => Promise<string>;
  readonly store: EventStore;
  readonly waiter: ProjectionWaiter;
  /** Where uploaded file bytes go. */
  readonly storage: ObjectStorage;
  /** What /health/ready looks at in this process (src/wiring/readiness.ts). */
  readonly readiness: readonly ReadinessCheck[];
  /** Intercom (or its sandbox), the read cache, the contact mapping and the webhook inbox. */
  readonly support: SupportParts;
  /** What the poll caches key on: the scopes each projection batch changed (decision 022). */
  readonly changes: ReadChanges;
  /** Who is polling, and pushes to many (wiring/push.ts). */
  readonly push: HttpServices['push'];
  /** What media links are minted and checked by (milliseconds since the epoch); the real time by default. */
  readonly clock?: () => number;
  /** The poll pace's sampling and rules (tests take the samples themselves); poll-pace.ts's defaults without. */
  readonly pace?: Omit<PollPaceOptions, 'pool' | 'registry' | 'onChange'>;
}

/** Logs each move of the poll pace: up as a warning with what raised it, down as news. */
function logPaceChange(logger: Logger): NonNullable<PollPaceOptions['onChange']> {
  let last = 1;
  return (factor, reading, triggers) => {
    const raised = factor > last;
    last = factor;
    const fields = {
      factor,
      triggers,
      busy: reading.busy,
      lateMs: reading.lateMs,
      queueMs: Math.round(reading.queueMs),
    };
    if (raised) logger.warn(fields, 'poll pace: clients asked to poll less often');
    else
      logger.info(
        fields,
        factor === 1 ? 'poll pace: back to the usual intervals' : 'poll pace: stepping down',
      );
  };
}

/** The HTTP app on the running parts: its dependency object made here, its routes in src/http. */
export function assembleApp(parts: AppParts): Promise<FastifyInstance> {
  return buildApp(createHttpServices(parts), {
    ...(parts.version === undefined ? {} : { version: parts.version }),
    ...(parts.registry === undefined ? {} : { registry: parts.registry }),
    ...(parts.metricsExposition === undefined ? {} : { metricsExposition: parts.metricsExposition }),
  });
}

const MIB = 1024 * 1024;

/** A key of its own for one purpose, from a secret the service holds (so no new setting is needed). */
const deriveKey = (secret: string, purpose: string): string =>
  Buffer.from(hkdfSync('sha256', secret, '', purpose, 32)).toString('hex');

/** The routes' dependency object, with the ports of the commands filled from queries, files and limiters. */
export function createHttpServices(deps: AppParts): HttpServices {
  const { config, pool, store, storage, support } = deps;
  const channelsUnread = createChannelsUnread(pool, deps.changes);
  const uploadCaps = {
    file: config.MAX_FILE_MB * MIB,
    image: config.MAX_IMAGE_MB * MIB,
    video: config.MAX_VIDEO_MB * MIB,
    imagePixels: config.MAX_IMAGE_PIXELS,
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
    readiness: deps.readiness,
    support,
    uploadCaps,
    changes: deps.changes,
    pace: startPollPace({
      ...deps.pace,
      pool,
      ...(deps.registry === undefined ? {} : { registry: deps.registry }),
      onChange: logPaceChange(deps.logger),
    }),
    chat: {
      pool,
      intercom: support.intercom,
      contacts: support.contacts,
      cache: support.cache,
      reads: support.reads,
      logger: deps.logger,
      files: {
        secret: config.FILE_URL_SECRET,
        publicBaseUrl: () => publicBaseUrl ?? support.serviceUrl(),
        ttlSeconds: config.FILE_URL_TTL_MINUTES * 60,
      },
      channelsUnread: (userId) => channelsUnread.of(userId),
    },
    push: deps.push,
    media: mediaLinks(
      mediaLinkTokens(config.FILE_URL_SECRET, config.MEDIA_URL_TTL_MINUTES * 60, deps.clock ?? Date.now),
    ),
    commentPosting: {
      store,
      postingContext: createPostingContextLookup(pool),
      slowMode: slowMode(deps.redis),
      images: commentImages(storage, uploadCaps),
      hashKey: deriveKey(config.FILE_URL_SECRET, 'comment-rejection-hash'),
    },
    hardwareIdKey: deriveKey(config.FILE_URL_SECRET, 'device-hardware-id'),
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
