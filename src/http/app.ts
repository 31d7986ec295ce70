import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { runInRequest } from '../lib/request-context.ts';
import { OneLinePerRequest } from './logger.ts';
import { lazyRequestLogger } from './request-logger.ts';
import { clientAuthPlugin } from './plugins/auth.ts';
import { clientIpPlugin } from './plugins/client-ip.ts';
import { corsPlugin } from './plugins/cors.ts';
import { answerClientError, answerFrameworkError, errorsPlugin } from './plugins/errors.ts';
import { idempotencyPlugin } from './plugins/idempotency.ts';
import { metricsPlugin } from './plugins/metrics.ts';
import { openapiPlugin } from './plugins/openapi.ts';
import { adminRoutes } from './routes/admin/index.ts';
import { apiRoutes } from './routes/api/index.ts';
import { registerApiRateLimit } from './plugins/rate-limit.ts';
import { publicFilesRoutes } from './routes/files.ts';
import { publicMediaRoutes } from './routes/media.ts';
import { consoleRoutes } from './routes/console.ts';
import { healthRoutes } from './routes/health.ts';
import { supportWebhookRoutes } from './routes/webhooks/support.ts';
import type { HttpServices } from './services.ts';
import { validatorCompilerWithTextRule } from './validation.ts';

/** JSON bodies are small; uploads get their own, larger limit on their own routes. */
const BODY_LIMIT_BYTES = 1024 * 1024;
const requestIdPattern = /^[\w.-]{1,128}$/;

export interface AppOptions {
  readonly version?: string;
  /** Where the app's metrics go; the projection runner registers its own there too. */
  readonly registry?: Registry;
  /** What `/metrics` answers when it is more than `registry` (every process of a cluster). */
  readonly metricsExposition?: () => Promise<string>;
}

/** The fastify app: its plugins, then every route, all reading `services` (decorated as `app.services`). */
export async function buildApp(services: HttpServices, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config, logger } = services;
  const loggerInstance: FastifyBaseLogger = logger;
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
    // A host user id in a path may be 256 characters (the id rule), each up to 4 UTF-8 bytes, percent-
    // encoded: the router's default of 100 would turn such a path into a 414 before validation.
    routerOptions: { maxParamLength: 256 * 4 * 3 },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    logController: new OneLinePerRequest(),
    childLoggerFactory: (_logger, bindings, childOptions) =>
      lazyRequestLogger(logger, bindings, childOptions),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompilerWithTextRule);
  app.setSerializerCompiler(serializerCompiler);
  // The API speaks JSON; a text body is a client mistake worth a clear 415, not a confusing 400.
  app.removeContentTypeParser('text/plain');
  // An empty body sent with a JSON content type is no body (some HTTP clients always set the type): a
  // route without a body takes it, a route that needs one refuses it as a missing field.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, body.toString(), done);
  });
  // The rest of the request (its body read too, however it arrives) runs inside its id's async context,
  // so that the log lines of the provider calls it makes carry `reqId` (src/lib/request-context.ts).
  app.addHook('onRequest', (request, _reply, done) => {
    runInRequest(request.id, done);
  });
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
  await app.register(metricsPlugin, {
    ...(options.registry ? { registry: options.registry } : {}),
    ...(options.metricsExposition ? { exposition: options.metricsExposition } : {}),
  });
  await app.register(openapiPlugin, {
    version: options.version ?? '0.0.0',
    publicBaseUrl: config.PUBLIC_BASE_URL,
  });
  await app.register(clientAuthPlugin, { secret: config.JWT_SECRET, requireExp: config.REQUIRE_JWT_EXP });

  await app.register(idempotencyPlugin, { pool: services.pool });

  app.decorate('services', services);
  app.addHook('onClose', () => {
    services.pace.stop();
  });
  await app.register(healthRoutes, { checks: services.readiness });
  await app.register(apiRoutes, { prefix: '/api' });
  await app.register(supportWebhookRoutes);
  // The signed links take no session, so they are limited per client IP, on counters of their own.
  await app.register(async (files) => {
    await registerApiRateLimit(files, {
      perMinute: config.FILES_RATE_LIMIT_PER_MINUTE,
      redis: services.redis,
      counters: 'files',
    });
    await files.register(publicFilesRoutes);
    await files.register(publicMediaRoutes);
  });
  await app.register(adminRoutes, { prefix: '/admin' });
  await app.register(consoleRoutes);
  return app;
}
