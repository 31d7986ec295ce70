import { useQuery } from '@tanstack/react-query';
import { api, type Schemas } from './client.ts';
import { unwrap } from './problem.ts';

export type ConversationAnalytics = Schemas['ConversationAnalytics'];
export type CsatAnalytics = Schemas['CsatAnalytics'];

/**
 * The period a report covers: the last `days` days up to now, or whole days of the admin's calendar
 * (`YYYY-MM-DD`, both included; either may be empty, as the API's defaults then say).
 */
export type Period = { readonly days: number } | { readonly from: string; readonly to: string };

const DAY_MS = 86_400_000;

/** The local midnight that starts `day` (`YYYY-MM-DD`), `plus` days later, as the API's instant. */
function midnight(day: string, plus = 0): string {
  const [year = 0, month = 1, date = 1] = day.split('-').map(Number);
  return new Date(year, month - 1, date + plus).toISOString();
}

/**
 * The API's `from` (inclusive) and `to` (exclusive) for a period, worked out when the request goes: a
 * rolling period moves with the clock, so it is never part of a query key as instants.
 */
export function periodQuery(period: Period, now = Date.now()): { from?: string; to?: string } {
  if ('days' in period) return { from: new Date(now - period.days * DAY_MS).toISOString() };
  return {
    ...(period.from === '' ? {} : { from: midnight(period.from) }),
    ...(period.to === '' ? {} : { to: midnight(period.to, 1) }),
  };
}

/** Conversations closed in the period: how many, the median and p90 of their durations, per day. */
export function useConversationAnalytics(period: Period) {
  return useQuery({
    queryKey: ['analytics', 'conversations', period],
    queryFn: async () =>
      unwrap(await api.GET('/admin/analytics/conversations', { params: { query: periodQuery(period) } })),
  });
}

/** Ratings given in the period, per day: how many and their average. Needs `analytics.read`. */
export function useCsatByDay(period: Period, enabled: boolean) {
  return useQuery({
    queryKey: ['analytics', 'csat', period],
    queryFn: async () =>
      unwrap(await api.GET('/admin/analytics/csat', { params: { query: periodQuery(period) } })),
    enabled,
  });
}
