import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { csatTargetTypeSchema } from '../../../events/csat.ts';
import { csatRatingsPage, csatSummary } from '../../../queries/csat.ts';
import { encodeInstantIdCursor, instantIdCursor, limitParam } from '../../cursor.ts';
import { problemSchema } from '../../problem.ts';
import { adminCsatListSchema } from '../../views/admin/csat.ts';
import { MAX_SPAN_DAYS, checkPeriod, periodFields, periodOf } from './analytics.ts';
import { adminErrors, adminSecurity } from './conventions.ts';

const query = z
  .object({
    ...periodFields,
    targetType: csatTargetTypeSchema.optional(),
    cursor: instantIdCursor().optional(),
    limit: limitParam,
  })
  .superRefine(checkPeriod);

/** API.md "CSAT and complaints": the ratings users gave, with their average and distribution. */
export const adminCsatRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.services;

  app.get(
    '/csat',
    {
      config: { access: 'csat.read' },
      schema: {
        operationId: 'adminListCsatRatings',
        tags: ['admin: csat'],
        security: adminSecurity,
        summary: 'CSAT ratings, newest first, with the count, average and distribution of the filter',
        description:
          '`from` is inclusive and `to` exclusive (ISO date-times, by the time of rating); by default the ' +
          `30 days up to now, at most ${MAX_SPAN_DAYS} days. \`count\`, \`average\` and \`distribution\` ` +
          'cover the whole filter; `items` is one page of it.',
        querystring: query,
        response: { 200: adminCsatListSchema, 400: problemSchema, ...adminErrors },
      },
    },
    async (request) => {
      const { targetType, cursor, limit } = request.query;
      const filter = { ...periodOf(request.query), targetType };
      const after = cursor === undefined ? null : { ratedAt: cursor.at, id: cursor.id };
      const [rows, summary] = await Promise.all([
        csatRatingsPage(pool, filter, limit + 1, after),
        csatSummary(pool, filter),
      ]);
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return {
        items,
        nextCursor: rows.length > limit && last ? encodeInstantIdCursor(last.ratedAt, last.id) : null,
        from: filter.from.toISOString(),
        to: filter.to.toISOString(),
        ...summary,
      };
    },
  );
};
