import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../../db/pool.ts';
import type { EventStore } from '../../events/store/port.ts';
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

const databaseReachable = (pool: DatabasePool) =>
  withinTimeout(
    pool.oneFirst(sql.type(z.object({ ok: z.number() }))`SELECT 1 AS ok`).then((ok) => ok === 1),
    false,
  );

/**
 * Which of the service's projections stopped on an event they cannot apply (whichever replica runs
 * them). A projection no longer in the code keeps its row, but no longer decides readiness.
 */
const failedProjections = (pool: DatabasePool, names: readonly string[]) =>
  withinTimeout(
    pool.anyFirst(sql.type(z.object({ name: z.string() }))`
      SELECT name FROM projections WHERE status = 'failed' AND name = ANY (${sql.array([...names], 'text')})
      ORDER BY name`),
    null,
  );

// Orchestrators probe these every few seconds; a success is not worth a log line each time.
const logLevel = 'warn';

export interface HealthOptions {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly projections: readonly string[];
}

export const healthRoutes: FastifyPluginAsyncZod<HealthOptions> = async (
  app,
  { pool, store, projections },
) => {
  const status = z.object({ status: z.string(), checks: z.record(z.string(), z.string()).optional() });
  app.get(
    '/health/live',
    { logLevel, schema: { tags: ['operations'], summary: 'The process is up', response: { 200: status } } },
    () => ({ status: 'ok' }),
  );
  app.get(
    '/health/ready',
    {
      logLevel,
      schema: {
        tags: ['operations'],
        summary: 'The database and the event store answer, and no projection has failed',
        response: { 200: status },
      },
    },
    async () => {
      const [database, eventStore, failed] = await Promise.all([
        databaseReachable(pool),
        withinTimeout(store.ping(), false),
        failedProjections(pool, projections),
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
