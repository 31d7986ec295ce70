import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../../db/pool.ts';
import { HttpProblem } from '../problem.ts';

const READY_TIMEOUT_MS = 2_000;

async function databaseReachable(pool: DatabasePool): Promise<boolean> {
  const timeout = new Promise<false>((done) => {
    setTimeout(() => {
      done(false);
    }, READY_TIMEOUT_MS).unref();
  });
  const check = pool
    .oneFirst(sql.type(z.object({ ok: z.number() }))`SELECT 1 AS ok`)
    .then((ok) => ok === 1)
    .catch(() => false);
  return Promise.race([check, timeout]);
}

// Orchestrators probe these every few seconds; a success is not worth a log line each time.
const logLevel = 'warn';

export const healthRoutes: FastifyPluginAsyncZod<{ pool: DatabasePool }> = async (app, { pool }) => {
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
      schema: { tags: ['operations'], summary: 'The database is reachable', response: { 200: status } },
    },
    async () => {
      if (!(await databaseReachable(pool))) {
        throw new HttpProblem(503, 'not_ready', 'The database is not reachable.', { 'retry-after': '5' });
      }
      return { status: 'ready', checks: { database: 'ok' } };
    },
  );
};
