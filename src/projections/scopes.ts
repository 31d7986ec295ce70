/**
 * The scopes of the read tables that clients poll, as the change feed names them (decision 022). A
 * projection's batch names the scopes it changed; a cache keys what it holds on the scopes it was read
 * from. A scope too wide costs needless reads; one too narrow shows stale data, so each says what moves it.
 */
export const scopes = {
  /** The channel list and every channel's settings: moved by channel events. */
  channels: 'channels',
  /** Which posts are published, in any channel (what the unread counts count). */
  published: 'published',
  /** A channel's posts: their content and status (not their counters). */
  feed: (channelId: string) => `feed:${channelId}`,
  /** The counters on a channel's posts: views, reactions, comments. Polls may show them late. */
  counts: (channelId: string) => `counts:${channelId}`,
  /** A post's comments. */
  thread: (postId: string) => `thread:${postId}`,
  /** A channel's comment moderators (their badges, and who sees hidden comments). */
  moderators: (channelId: string) => `moderators:${channelId}`,
  /** A user's own reactions. */
  reactionsOf: (userId: string) => `reactions:${userId}`,
  /** A user's read markers. */
  readsOf: (userId: string) => `reads:${userId}`,
} as const;
