import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { databaseAnswers } from '../../db/pool.ts';
import { failedProjections } from '../../projections/status.ts';
import { HttpProblem } from '../problem.ts';

const READY_TIMEOUT_MS = 2_000;

function withinTimeout<T>(check: Promise<T>, fallback: T): Promise<T> {
  const timeout = new Promise<T>((done) => {
    setTimeout(() => {
      done(fallback);
    }, READY_TIMEOUT_MS).unref();
  });
  return Promise.race([check.catch(() => fallback), timeout]);
}

// Orchestrators probe these every few seconds; a success is not worth a log line each time.
const logLevel = 'warn';

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, store, projections } = app.services;
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
        summary: 'The database and the event store answer, and no projection has failed',
        response: { 200: status },
      },
    },
    async () => {
      const [database, eventStore, failed] = await Promise.all([
        withinTimeout(databaseAnswers(pool), false),
        withinTimeout(store.ping(), false),
        // A projection no longer in the code keeps its row, but no longer decides readiness.
        withinTimeout(failedProjections(pool, projections), null),
      ]);
      const problems = [
        ...(database ? [] : ['the database is not reachable']),
        ...(eventStore ? [] : ['the event store is not reachable']),
        ...(failed === null ? [] : failed.map((name) => `projection ${name} has failed`)),
      ];
      if (problems.length > 0) {
        throw new HttpProblem(503, 'not_ready', `Not ready: ${problems.join('; ')}.`, { 'retry-after': '5' });
      }
      return { status: 'ready', checks: { database: 'ok', eventStore: 'ok', projections: 'ok' } };
    },
  );
};
