import { useInfiniteQuery } from '@tanstack/react-query';
import { api, type Schemas } from './client.ts';
import { unwrap } from './problem.ts';

export type AuditEntry = Schemas['AuditEntry'];
export type AuditOutcome = AuditEntry['outcome'];

export const AUDIT_OUTCOMES: readonly AuditOutcome[] = ['success', 'failed', 'denied', 'locked', 'error'];

/** The audit log's filters as the API takes them; `from` inclusive and `to` exclusive, as instants. */
export interface AuditFilter {
  readonly adminId?: string;
  readonly action?: string;
  readonly targetId?: string;
  readonly outcome?: AuditOutcome;
  readonly from?: string;
  readonly to?: string;
}

/** The log, newest first, fifty entries at a time. */
export function useAuditLog(filter: AuditFilter) {
  return useInfiniteQuery({
    queryKey: ['audit-log', filter],
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.GET('/admin/audit-log', {
          params: { query: { ...filter, limit: 50, ...(pageParam === null ? {} : { cursor: pageParam }) } },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
}
