import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas } from './client.ts';
import { usePolledQuery } from './poll.ts';
import { unwrap } from './problem.ts';

export type CommentReport = Schemas['CommentReport'];
export type ReportStatus = CommentReport['status'];
export type ReportAction = NonNullable<CommentReport['action']>;
export type AdminComment = Schemas['AdminComment'];
export type CommentStatus = AdminComment['status'];
export type CommentBan = Schemas['CommentBan'];

export const COMMENT_STATUSES: readonly CommentStatus[] = ['visible', 'hidden', 'deleted'];

/** The most the admin API gives in one page: the console shows the newest page of each list. */
const PAGE = 100;

/** The report queue, the longest waiting first; polled, so a new report shows up by itself. */
export function useReports(status: ReportStatus) {
  return usePolledQuery(['reports', status], (headers) =>
    api.GET('/admin/reports', { params: { query: { status, limit: PAGE } }, headers }),
  );
}

export interface CommentFilter {
  readonly status?: CommentStatus | undefined;
  readonly postId?: string | undefined;
  /** Only comments with open reports. */
  readonly reported?: boolean | undefined;
}

/** The newest page of a channel's comments, of every status unless filtered. */
export function useChannelComments(channelId: string, filter: CommentFilter = {}) {
  const { status, postId, reported } = filter;
  return usePolledQuery(
    ['comments', channelId, status ?? null, postId ?? null, reported ?? false],
    (headers) =>
      api.GET('/admin/channels/{id}/comments', {
        params: {
          path: { id: channelId },
          query: {
            limit: PAGE,
            ...(status === undefined ? {} : { status }),
            ...(postId === undefined ? {} : { postId }),
            ...(reported ? { reported: 'true' as const } : {}),
          },
        },
        headers,
      }),
  );
}

/**
 * A channel's newest posts, to pick one by its text; only for a role that may list posts (`posts.write`).
 * Any other role picks among the posts its comments name.
 */
export function useChannelPostList(channelId: string, allowed: boolean) {
  return useQuery({
    queryKey: ['posts', channelId, 'for-comments'],
    queryFn: async () =>
      unwrap(
        await api.GET('/admin/channels/{id}/posts', {
          params: { path: { id: channelId }, query: { limit: PAGE } },
        }),
      ),
    enabled: allowed && channelId !== '',
    staleTime: 60_000,
  });
}

/**
 * After a moderator's action the lists are read again: the server answers only once its read tables show
 * the change, so what comes back is what it confirmed (no optimistic change).
 */
function useRefresh(...keys: readonly string[]) {
  const client = useQueryClient();
  return () => Promise.all(keys.map((key) => client.invalidateQueries({ queryKey: [key] })));
}

export function useResolveReport() {
  const refresh = useRefresh('reports', 'comments', 'replay', 'moderation-events');
  return useMutation({
    mutationFn: async ({ id, action }: { id: string; action: ReportAction }) =>
      unwrap(await api.POST('/admin/reports/{id}/resolve', { params: { path: { id } }, body: { action } })),
    onSuccess: refresh,
  });
}

export type CommentAction = 'hide' | 'unhide' | 'delete';

/** Hides, shows again or deletes a comment; hiding and deleting take a reason, which the log keeps. */
export function useModerateComment() {
  const refresh = useRefresh('reports', 'comments', 'replay', 'moderation-events');
  return useMutation({
    mutationFn: async ({ id, action, reason }: { id: string; action: CommentAction; reason: string }) => {
      const params = { path: { id } };
      if (action === 'unhide') unwrap(await api.POST('/admin/comments/{id}/unhide', { params }));
      else if (action === 'hide')
        unwrap(await api.POST('/admin/comments/{id}/hide', { params, body: { reason } }));
      else unwrap(await api.DELETE('/admin/comments/{id}', { params, body: { reason } }));
    },
    onSuccess: refresh,
  });
}

/** The channel's bans that hold now. */
export function useBans(channelId: string) {
  return usePolledQuery(['bans', channelId], (headers) =>
    api.GET('/admin/channels/{id}/bans', { params: { path: { id: channelId } }, headers }),
  );
}

export interface BanRequest {
  readonly userId: string;
  /** Absent: until lifted. */
  readonly until?: string | undefined;
  readonly reason: string;
}

export function useBanUser(channelId: string) {
  const refresh = useRefresh('bans', 'replay', 'moderation-events');
  return useMutation({
    mutationFn: async ({ userId, until, reason }: BanRequest) =>
      unwrap(
        await api.POST('/admin/channels/{id}/bans', {
          params: { path: { id: channelId } },
          body: { userId, reason, ...(until === undefined ? {} : { until }) },
        }),
      ),
    onSuccess: refresh,
  });
}

export function useLiftBan(channelId: string) {
  const refresh = useRefresh('bans', 'replay', 'moderation-events');
  return useMutation({
    mutationFn: async (userId: string) => {
      unwrap(
        await api.DELETE('/admin/channels/{id}/bans/{userId}', {
          params: { path: { id: channelId, userId } },
        }),
      );
    },
    onSuccess: refresh,
  });
}

/** The channel's comment moderators: user ids of the app's users, not admins. */
export function useModerators(channelId: string) {
  return usePolledQuery(['moderators', channelId], (headers) =>
    api.GET('/admin/channels/{id}/moderators', { params: { path: { id: channelId } }, headers }),
  );
}

/** Makes a user a moderator of the channel (`add`) or ends it (`remove`); a repeat changes nothing. */
export function useSetModerator(channelId: string) {
  const refresh = useRefresh('moderators', 'comments', 'replay', 'moderation-events');
  return useMutation({
    mutationFn: async ({ userId, change }: { userId: string; change: 'add' | 'remove' }) => {
      const params = { path: { id: channelId, userId } };
      if (change === 'add') unwrap(await api.PUT('/admin/channels/{id}/moderators/{userId}', { params }));
      else unwrap(await api.DELETE('/admin/channels/{id}/moderators/{userId}', { params }));
    },
    onSuccess: refresh,
  });
}
