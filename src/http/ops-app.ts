import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { answerClientError, answerFrameworkError, errorsPlugin } from './plugins/errors.ts';
import { metricsPlugin } from './plugins/metrics.ts';
import { type ReadinessCheck, healthRoutes } from './routes/health.ts';
import { validatorCompilerWithTextRule } from './validation.ts';

export interface OpsAppOptions {
  readonly logger: Logger;
  readonly registry: Registry;
  readonly readiness: readonly ReadinessCheck[];
}

/**
 * What a process without the api role serves: `/health/live`, `/health/ready` and `/metrics`, for the
 * orchestrator and the scraper. No API, no session, no body.
 */
export async function buildOpsApp(options: OpsAppOptions): Promise<FastifyInstance> {
  const loggerInstance: FastifyBaseLogger = options.logger;
  const app = Fastify({
    loggerInstance,
    bodyLimit: 1024,
    return503OnClosing: true,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompilerWithTextRule);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(errorsPlugin);
  await app.register(metricsPlugin, { registry: options.registry });
  await app.register(healthRoutes, { checks: options.readiness });
  return app;
}
