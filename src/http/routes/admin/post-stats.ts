import { z } from 'zod';
import { notFound } from '../../../lib/domain-error.ts';
import { postStats } from '../../../queries/post-stats.ts';
import { problemSchema } from '../../problem.ts';
import { pushProgress } from '../../../push/push-log.ts';
import { pushProgressSchema } from '../../views/admin/pushes.ts';
import { type AdminApp, adminErrors, adminSecurity } from './conventions.ts';

const tags = ['admin: posts'];
const security = adminSecurity;
const postParams = z.object({ postId: z.uuid() });

/** `GET /admin/posts/:postId/stats` (added by posts.ts, which keeps the order of the post routes). */
export function postStatsRoute(app: AdminApp): void {
  const { pool } = app.services;
  const dayCounts = z.array(z.object({ day: z.string(), count: z.number().int() }));
  app.get(
    '/posts/:postId/stats',
    {
      config: { access: 'posts.write' },
      schema: {
        operationId: 'adminGetPostStats',
        tags,
        security,
        summary: "A post's views and clicks per day (UTC), reactions by emoji and clicks by button",
        params: postParams,
        response: {
          200: z
            .object({
              postId: z.uuid(),
              views: z.object({
                total: z
                  .number()
                  .int()
                  .describe('every view; `byDay` leaves out those of users erased since'),
                byDay: dayCounts,
              }),
              reactions: z.record(z.string(), z.number().int()),
              clicks: z.object({
                total: z.number().int(),
                byButton: z.array(
                  z.object({ buttonId: z.uuid(), label: z.string().nullable(), count: z.number().int() }),
                ),
                byDay: dayCounts,
              }),
              push: pushProgressSchema
                .nullable()
                .describe('the push of a post published with `notify`, or null'),
            })
            .meta({ id: 'PostStats' }),
          404: problemSchema,
          ...adminErrors,
        },
      },
    },
    async (request) => {
      const stats = await postStats(pool, request.params.postId);
      if (!stats) throw notFound('No such post.');
      const source = `post:${request.params.postId}`;
      const { notified, ...numbers } = stats;
      return { ...numbers, push: notified ? await pushProgress(pool, source) : null };
    },
  );
}
