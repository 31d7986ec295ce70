import { type QueryKey, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Answer, unwrap } from './problem.ts';

/** How often a list asks again when the server names no interval of its own. */
export const DEFAULT_POLL_MS = 15_000;

interface Tagged<T> {
  readonly value: T;
  readonly etag: string | null;
  readonly intervalMs: number;
}

/**
 * A list that keeps itself fresh, as the SDKs poll: every `X-Poll-Interval` (or `DEFAULT_POLL_MS`) while
 * the tab is visible, sending back the ETag of what it holds, so an unchanged list costs a 304 and keeps
 * its data. A list answered without an ETag is simply read again.
 */
export function usePolledQuery<T>(
  queryKey: QueryKey,
  fetchList: (headers: Record<string, string>) => Promise<Answer<T>>,
) {
  const client = useQueryClient();
  return useQuery({
    queryKey,
    queryFn: async (): Promise<Tagged<T>> => {
      const held = client.getQueryData<Tagged<T>>(queryKey);
      const answer = await fetchList(held?.etag ? { 'if-none-match': held.etag } : {});
      if (answer.response.status === 304 && held) return held;
      const interval = Number(answer.response.headers.get('x-poll-interval') ?? Number.NaN);
      return {
        value: unwrap(answer),
        etag: answer.response.headers.get('etag'),
        intervalMs: Number.isFinite(interval) && interval > 0 ? interval : DEFAULT_POLL_MS,
      };
    },
    select: (tagged) => tagged.value,
    refetchInterval: (query) => query.state.data?.intervalMs ?? DEFAULT_POLL_MS,
    refetchIntervalInBackground: false,
  });
}
