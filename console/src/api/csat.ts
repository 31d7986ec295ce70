import { useInfiniteQuery } from '@tanstack/react-query';
import { type Period, periodQuery } from './analytics.ts';
import { api, type Schemas } from './client.ts';
import { unwrap } from './problem.ts';

export type CsatList = Schemas['AdminCsatList'];
export type CsatRating = Schemas['AdminCsatRating'];
export type CsatTargetType = CsatRating['targetType'];

export const CSAT_SCORES = [1, 2, 3, 4, 5] as const;
export const CSAT_TARGET_TYPES: readonly CsatTargetType[] = ['conversation', 'ticket'];

/** The next page of the same filter: the first answer's instants, so a rolling period stays put. */
interface NextPage {
  readonly cursor: string;
  readonly from: string;
  readonly to: string;
}

/**
 * The ratings of a period, newest first, a page at a time. Every page carries the count, average and
 * distribution of the whole filter, not of the page.
 */
export function useCsatRatings(period: Period, targetType: CsatTargetType | null) {
  return useInfiniteQuery({
    queryKey: ['csat', period, targetType],
    queryFn: async ({ pageParam }) => {
      const range = pageParam === null ? periodQuery(period) : { from: pageParam.from, to: pageParam.to };
      const query = {
        ...range,
        ...(targetType === null ? {} : { targetType }),
        ...(pageParam === null ? {} : { cursor: pageParam.cursor }),
      };
      return unwrap(await api.GET('/admin/csat', { params: { query } }));
    },
    initialPageParam: null as NextPage | null,
    getNextPageParam: (page): NextPage | null =>
      page.nextCursor === null ? null : { cursor: page.nextCursor, from: page.from, to: page.to },
  });
}
