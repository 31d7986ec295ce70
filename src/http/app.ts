import { hkdfSync, randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ChatDeps } from '../chat/conversations.ts';
import type { SupportServices } from '../wiring/support.ts';
import type { ResolvedConfig } from '../config.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { EventStore } from '../events/store/port.ts';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import type { ProjectionWaiter } from '../projections/progress.ts';
import { createReadVersions, type LocalProjections } from '../projections/read-version.ts';
import { OneLinePerRequest } from './logger.ts';
import { lazyRequestLogger } from './request-logger.ts';
import { clientAuthPlugin } from './plugins/auth.ts';
import { clientIpPlugin } from './plugins/client-ip.ts';
import { corsPlugin } from './plugins/cors.ts';
import { errorsPlugin } from './plugins/errors.ts';
import { idempotencyPlugin } from './plugins/idempotency.ts';
import { metricsPlugin } from './plugins/metrics.ts';
import { openapiPlugin } from './plugins/openapi.ts';
import { adminRoutes } from './routes/admin/index.ts';
import { apiRoutes } from './routes/api/index.ts';
import { publicFilesRoutes } from './routes/files.ts';
import { healthRoutes } from './routes/health.ts';
import { supportWebhookRoutes } from './routes/webhooks/support.ts';

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
  readonly support: SupportServices;
  /** The projections this process runs: caches key on their progress without a query (decision 014). */
  readonly localProjections?: LocalProjections | undefined;
}

const MIB = 1024 * 1024;

/** A key of its own for one purpose, from a secret the service holds (so no new setting is needed). */
const deriveKey = (secret: string, purpose: string): string =>
  Buffer.from(hkdfSync('sha256', secret, '', purpose, 32)).toString('hex');
/** JSON bodies are small; uploads get their own, larger limit on their own routes. */
const BODY_LIMIT_BYTES = MIB;
const requestIdPattern = /^[\w.-]{1,128}$/;

export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const { config } = deps;
  const loggerInstance: FastifyBaseLogger = deps.logger;
  const app = Fastify({
    loggerInstance,
    bodyLimit: BODY_LIMIT_BYTES,
    // A caller-supplied X-Request-Id is kept when it looks like an id, so traces join up across services.
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
    logController: new OneLinePerRequest(),
    childLoggerFactory: (logger, bindings, options) => lazyRequestLogger(deps.logger, bindings, options),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // The API speaks JSON; a text body is a client mistake worth a clear 415, not a confusing 400.
  app.removeContentTypeParser('text/plain');
  app.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-request-id', request.id);
    done(null, payload);
  });

  await app.register(errorsPlugin);
  await app.register(clientIpPlugin, { trustProxyHops: config.TRUST_PROXY_HOPS });
  await app.register(corsPlugin, {
    origins: config.CORS_ORIGINS,
    production: config.NODE_ENV === 'production',
  });
  await app.register(metricsPlugin, deps.registry ? { registry: deps.registry } : {});
  await app.register(openapiPlugin, { version: deps.version ?? '0.0.0' });
  await app.register(clientAuthPlugin, { secret: config.JWT_SECRET, requireExp: config.REQUIRE_JWT_EXP });

  await app.register(idempotencyPlugin, { pool: deps.pool });

  const { support } = deps;
  const publicBaseUrl = config.PUBLIC_BASE_URL;
  const chat: ChatDeps = {
    pool: deps.pool,
    intercom: support.intercom,
    contacts: support.contacts,
    cache: support.cache,
    logger: deps.logger,
    files: {
      secret: config.FILE_URL_SECRET,
      publicBaseUrl: () => publicBaseUrl ?? support.serviceUrl(),
      ttlSeconds: config.FILE_URL_TTL_MINUTES * 60,
    },
  };
  const uploadCaps = {
    file: config.MAX_FILE_MB * MIB,
    image: config.MAX_IMAGE_MB * MIB,
    video: config.MAX_VIDEO_MB * MIB,
  };
  await app.register(healthRoutes, { pool: deps.pool, store: deps.store, projections: deps.projections });
  await app.register(apiRoutes, {
    prefix: '/api',
    pool: deps.pool,
    store: deps.store,
    waiter: deps.waiter,
    redis: deps.redis,
    rateLimitPerMinute: config.API_RATE_LIMIT_PER_MINUTE,
    storage: deps.storage,
    uploadCaps,
    feedPollMs: config.POLL_FEED_MS,
    versions: createReadVersions(deps.pool, { local: deps.localProjections }),
    commentHashKey: deriveKey(config.FILE_URL_SECRET, 'comment-rejection-hash'),
    chat,
    support,
    client: {
      poll: { chatMs: config.POLL_CHAT_MS, commentsMs: config.POLL_COMMENTS_MS },
      limits: {
        maxFileBytes: uploadCaps.file,
        maxImageBytes: uploadCaps.image,
        maxVideoBytes: uploadCaps.video,
        commentMaxLength: config.COMMENT_MAX_LENGTH,
      },
    },
    devtools: {
      enabled: config.ENABLE_DEVTOOLS && config.NODE_ENV !== 'production',
      resetAll: config.ENABLE_DEVTOOLS_RESET_ALL,
    },
  });
  await app.register(supportWebhookRoutes, {
    pool: deps.pool,
    clientSecret: support.webhookSecret,
    inbox: support.inbox,
  });
  await app.register(publicFilesRoutes, {
    pool: deps.pool,
    storage: deps.storage,
    secret: config.FILE_URL_SECRET,
  });
  await app.register(adminRoutes, {
    prefix: '/admin',
    pool: deps.pool,
    redis: deps.redis,
    store: deps.store,
    waiter: deps.waiter,
    storage: deps.storage,
    uploadCaps,
    sessionSecret: config.ADMIN_SESSION_SECRET,
    sessionTtlMinutes: config.ADMIN_SESSION_TTL_MINUTES,
    login: {
      maxFailures: config.ADMIN_LOGIN_MAX_FAILURES,
      windowMinutes: config.ADMIN_LOGIN_WINDOW_MINUTES,
      lockMinutes: config.ADMIN_LOGIN_LOCK_MINUTES,
    },
  });
  return app;
}
