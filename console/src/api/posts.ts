import { api, type Schemas } from './client.ts';
import { usePolledQuery } from './poll.ts';

export type AdminPost = Schemas['AdminPost'];
export type PostStatus = AdminPost['status'];

export const POST_STATUSES: readonly PostStatus[] = ['draft', 'scheduled', 'published', 'hidden', 'deleted'];

/** The newest page of a channel's posts, of one status or of every status but deleted. */
export function useChannelPosts(channelId: string, status: PostStatus | null) {
  return usePolledQuery(['posts', channelId, status], (headers) =>
    api.GET('/admin/channels/{id}/posts', {
      params: { path: { id: channelId }, query: status === null ? {} : { status } },
      headers,
    }),
  );
}
