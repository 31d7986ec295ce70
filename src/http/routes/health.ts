import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpProblem } from '../problem.ts';

/** One thing /health/ready looks at: null when it is fine, else what is wrong, in words. */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<string | null>;
}

const READY_TIMEOUT_MS = 2_000;

/** A check that takes too long, or throws, says so instead of holding the probe. */
function withinTimeout(check: ReadinessCheck): Promise<string | null> {
  const late = new Promise<string>((done) => {
    setTimeout(() => {
      done(`${check.name}: no answer within ${READY_TIMEOUT_MS / 1000} s`);
    }, READY_TIMEOUT_MS).unref();
  });
  return Promise.race([check.check().catch(() => `${check.name}: the check failed`), late]);
}

// Orchestrators probe these every few seconds; a success is not worth a log line each time.
const logLevel = 'warn';

/**
 * `/health/live` (the process answers) and `/health/ready`: each of `checks`, which the process's roles
 * decide (src/wiring/readiness.ts), must pass.
 */
export const healthRoutes: FastifyPluginAsyncZod<{ readonly checks: readonly ReadinessCheck[] }> = async (
  app,
  { checks },
) => {
  const status = z.object({ status: z.string(), checks: z.record(z.string(), z.string()).optional() });
  app.get(
    '/health/live',
    {
      logLevel,
      schema: {
        operationId: 'checkLiveness',
        security: [],
        tags: ['operations'],
        summary: 'The process is up',
        response: { 200: status },
      },
    },
    () => ({ status: 'ok' }),
  );
  app.get(
    '/health/ready',
    {
      logLevel,
      schema: {
        operationId: 'checkReadiness',
        security: [],
        tags: ['operations'],
        summary: "Everything this process's roles need answers (the database, the event store, …)",
        response: { 200: status },
      },
    },
    async () => {
      const results = await Promise.all(checks.map(withinTimeout));
      const problems = results.filter((problem): problem is string => problem !== null);
      if (problems.length > 0) {
        throw new HttpProblem(503, 'not_ready', `Not ready: ${problems.join('; ')}.`, { 'retry-after': '5' });
      }
      return { status: 'ready', checks: Object.fromEntries(checks.map((c) => [c.name, 'ok'])) };
    },
  );
};
