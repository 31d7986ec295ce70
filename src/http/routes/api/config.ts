import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { activeReasons } from '../../../chat/reasons.ts';
import { problemSchema } from '../../problem.ts';

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

export const configRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, config, uploadCaps } = app.services;
  const client = {
    poll: { chatMs: config.POLL_CHAT_MS, commentsMs: config.POLL_COMMENTS_MS },
    limits: {
      maxFileBytes: uploadCaps.file,
      maxImageBytes: uploadCaps.image,
      maxVideoBytes: uploadCaps.video,
      commentMaxLength: config.COMMENT_MAX_LENGTH,
    },
  };
  app.get(
    '/config',
    {
      schema: {
        operationId: 'getConfig',
        tags: ['config'],
        security: [{ sessionJwt: [] }],
        summary: 'What the SDK needs to set itself up: active reasons, poll intervals, upload limits',
        response: { 200: configSchema, 401: problemSchema, 429: problemSchema },
      },
    },
    async () => ({ reasons: await activeReasons(pool), ...client }),
  );
};
