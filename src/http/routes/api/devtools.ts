import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DatabasePool } from '../../../db/pool.ts';
import { emptyAllTables } from '../../../db/reset.ts';
import { problemSchema } from '../../problem.ts';

export interface DevtoolsOptions {
  readonly pool: DatabasePool;
  readonly resetAll: boolean;
}

/** Mounted only when ENABLE_DEVTOOLS=1 outside production (see http/routes/api/index.ts). */
export const devtoolsRoutes: FastifyPluginAsyncZod<DevtoolsOptions> = async (app, { pool, resetAll }) => {
  if (resetAll) {
    app.post(
      '/devtools/reset-all',
      {
        schema: {
          tags: ['devtools'],
          security: [{ sessionJwt: [] }],
          summary: 'Empties every table of the service (needs ENABLE_DEVTOOLS_RESET_ALL=1)',
          response: { 204: z.null().describe('Emptied'), 401: problemSchema },
        },
      },
      async (request, reply) => {
        const tables = await emptyAllTables(pool);
        request.log.warn(
          { tables: tables.length, userId: request.userId },
          'devtools reset-all emptied every table',
        );
        return reply.code(204).send(null);
      },
    );
  }
};
