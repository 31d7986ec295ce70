import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, type Schemas } from './client.ts';
import { unwrap } from './problem.ts';

export type ModerationEvent = Schemas['ModerationEvent'];
export type ModerationReplay = Schemas['ModerationReplay'];

/** The history's filters, as the API takes them; `from` inclusive, `to` exclusive (ISO instants). */
export interface HistoryFilter {
  readonly channelId?: string | undefined;
  readonly userId?: string | undefined;
  readonly commentId?: string | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
}

const PAGE = 50;

/** What moderation did, newest first, a page at a time ("older" reads the next). */
export function useModerationEvents(filter: HistoryFilter) {
  const query = Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
  return useInfiniteQuery({
    queryKey: ['moderation-events', query],
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.GET('/admin/moderation/events', {
          params: { query: { ...query, limit: PAGE, ...(pageParam === null ? {} : { cursor: pageParam }) } },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
}

/**
 * A channel's comments, bans and moderators as they stood at `asOf` (null: now), rebuilt by the server
 * from the event store. The previous answer stays on screen while the next instant is read.
 */
export function useReplay(channelId: string, asOf: string | null) {
  return useQuery({
    queryKey: ['replay', channelId, asOf],
    queryFn: async () =>
      unwrap(
        await api.GET('/admin/moderation/replay', {
          params: { query: { channelId, ...(asOf === null ? {} : { asOf }) } },
        }),
      ),
    enabled: channelId !== '',
    placeholderData: keepPreviousData,
  });
}
