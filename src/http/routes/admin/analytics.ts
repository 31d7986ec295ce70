import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { conversationDurations, type Period } from '../../../queries/analytics.ts';
import { csatByDay, csatSummary } from '../../../queries/csat.ts';
import { problemSchema } from '../../problem.ts';
import { conversationAnalyticsSchema, csatAnalyticsSchema } from '../../views/admin/analytics.ts';
import { adminErrors, adminSecurity } from './conventions.ts';

const DAY_MS = 86_400_000;
/** The period when the query names none: the 30 days up to now. */
const DEFAULT_SPAN_DAYS = 30;
/** The longest period one request may cover: a year, leap day included. */
export const MAX_SPAN_DAYS = 366;
/** Instants PostgreSQL and `toISOString` both keep in the plain `YYYY-…Z` form. */
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31);

/** `from` and `to` of an admin period query: ISO date-times, with an offset or Z. */
export const periodFields = {
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
};
type PeriodQuery = { readonly from?: string | undefined; readonly to?: string | undefined };

/** The period a query names: `to` defaults to now, `from` to 30 days before `to`. */
export function periodOf(query: PeriodQuery): Period {
  const to = query.to === undefined ? new Date() : new Date(query.to);
  const from =
    query.from === undefined
      ? new Date(Math.max(EARLIEST, to.getTime() - DEFAULT_SPAN_DAYS * DAY_MS))
      : new Date(query.from);
  return { from, to };
}

/** Refuses a period that is backwards, longer than a year, or outside the years the database keeps. */
export function checkPeriod(query: PeriodQuery, ctx: z.RefinementCtx): void {
  for (const key of ['from', 'to'] as const) {
    const value = query[key];
    const at = value === undefined ? EARLIEST : Date.parse(value);
    if (!(at >= EARLIEST && at <= LATEST)) {
      ctx.addIssue({ code: 'custom', message: 'must be an instant from 1970 to 9999', path: [key] });
      return;
    }
  }
  const { from, to } = periodOf(query);
  if (from > to) ctx.addIssue({ code: 'custom', message: 'must not be after to', path: ['from'] });
  else if (to.getTime() - from.getTime() > MAX_SPAN_DAYS * DAY_MS) {
    ctx.addIssue({
      code: 'custom',
      message: `must be at most ${MAX_SPAN_DAYS} days after from`,
      path: ['to'],
    });
  }
}

/** Every UTC day the period touches (`to` is exclusive), oldest first. */
export function daysOf({ from, to }: Period): string[] {
  const days: string[] = [];
  const first = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
  for (let day = first; day < to.getTime(); day += DAY_MS)
    days.push(new Date(day).toISOString().slice(0, 10));
  return days;
}

const periodQuery = z.object(periodFields).superRefine(checkPeriod);
const tags = ['admin: analytics'];
const security = adminSecurity;
const PERIOD_NOTE =
  '`from` is inclusive and `to` exclusive (ISO date-times); by default the 30 days up to now, at most ' +
  `${MAX_SPAN_DAYS} days. Days are UTC.`;

/** API.md "Analytics": how long conversations ran, and how users rated, per day. */
export const analyticsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.services;

  app.get(
    '/analytics/conversations',
    {
      config: { access: 'analytics.read' },
      schema: {
        operationId: 'adminGetConversationAnalytics',
        tags,
        security,
        summary: 'Conversations closed in a period: how many, and the median and p90 of their durations',
        description:
          `${PERIOD_NOTE} A conversation counts on the day it was closed, once per close ` +
          "(`conversation_durations`); percentiles are interpolated between durations, as PostgreSQL's " +
          '`percentile_cont`.',
        querystring: periodQuery,
        response: { 200: conversationAnalyticsSchema, 400: problemSchema, ...adminErrors },
      },
    },
    async (request) => {
      const period = periodOf(request.query);
      const { total, days } = await conversationDurations(pool, period);
      const byDay = new Map(days.map((d) => [d.day, d]));
      return {
        from: period.from.toISOString(),
        to: period.to.toISOString(),
        ...total,
        series: daysOf(period).map((day) => ({
          day,
          count: byDay.get(day)?.count ?? 0,
          medianSeconds: byDay.get(day)?.median ?? null,
        })),
      };
    },
  );

  app.get(
    '/analytics/csat',
    {
      config: { access: 'analytics.read' },
      schema: {
        operationId: 'adminGetCsatAnalytics',
        tags,
        security,
        summary: 'CSAT ratings given in a period: how many and their average, overall and per day',
        description: `${PERIOD_NOTE} A rating counts on the day it was given.`,
        querystring: periodQuery,
        response: { 200: csatAnalyticsSchema, 400: problemSchema, ...adminErrors },
      },
    },
    async (request) => {
      const period = periodOf(request.query);
      const [summary, days] = await Promise.all([csatSummary(pool, period), csatByDay(pool, period)]);
      const byDay = new Map(days.map((d) => [d.day, d]));
      return {
        from: period.from.toISOString(),
        to: period.to.toISOString(),
        count: summary.count,
        average: summary.average,
        series: daysOf(period).map((day) => ({
          day,
          count: byDay.get(day)?.count ?? 0,
          average: byDay.get(day)?.average ?? null,
        })),
      };
    },
  );
};
