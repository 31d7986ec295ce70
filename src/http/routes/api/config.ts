import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DatabasePool } from '../../../db/pool.ts';
import { activeReasons } from '../../../chat/reasons.ts';
import { problemSchema } from '../../problem.ts';

export interface ClientConfig {
  readonly poll: { readonly chatMs: number; readonly commentsMs: number };
  readonly limits: {
    readonly maxFileBytes: number;
    readonly maxImageBytes: number;
    readonly maxVideoBytes: number;
    readonly commentMaxLength: number;
  };
}

const reasonItem = z.object({ id: z.string(), title: z.string() });
const configSchema = z
  .object({
    reasons: z.object({ support: z.array(reasonItem), complaint: z.array(reasonItem) }),
    poll: z.object({ chatMs: z.number().int(), commentsMs: z.number().int() }),
    limits: z.object({
      maxFileBytes: z.number().int(),
      maxImageBytes: z.number().int(),
      maxVideoBytes: z.number().int(),
      commentMaxLength: z.number().int(),
    }),
  })
  .meta({ id: 'ClientConfig' });

export const configRoutes: FastifyPluginAsyncZod<{ pool: DatabasePool; client: ClientConfig }> = async (
  app,
  { pool, client },
) => {
  app.get(
    '/config',
    {
      schema: {
        tags: ['config'],
        security: [{ sessionJwt: [] }],
        summary: 'What the SDK needs to set itself up: active reasons, poll intervals, upload limits',
        response: { 200: configSchema, 401: problemSchema, 429: problemSchema },
      },
    },
    async () => ({ reasons: await activeReasons(pool), ...client }),
  );
};
