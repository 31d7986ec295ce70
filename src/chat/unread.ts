import { type ChatDeps, conversationsOf } from './conversations.ts';
import { ticketsOf } from './tickets.ts';

export interface Unread {
  /** Messages from the team the user has not read, across every request. */
  readonly conversations: number;
  /** Tickets changed since the user last looked at them (decision 020). */
  readonly tickets: number;
  /** Published posts past the user's read marker, by channel. */
  readonly channels: Record<string, number>;
}

export interface UnreadDeps extends Pick<ChatDeps, 'cache' | 'contacts' | 'reads'> {
  /** The user's unread posts by channel (from the channels' read tables, cached). */
  channelsUnread(userId: string): Promise<Record<string, number>>;
}

/** The badges of API.md's `/api/unread`, from the support cache and the channel read tables. */
export async function unreadOf(deps: UnreadDeps, userId: string) {
  const [conversations, tickets, seen, channels] = await Promise.all([
    conversationsOf(deps, userId),
    ticketsOf(deps, userId),
    deps.reads.seen(userId),
    deps.channelsUnread(userId),
  ]);
  const unread: Unread = {
    conversations: conversations.items.reduce((sum, c) => sum + c.unreadCount, 0),
    tickets: tickets.items.filter((t) => (seen.get(t.id)?.getTime() ?? -1) < Date.parse(t.updatedAt)).length,
    channels,
  };
  const freshness = {
    stale: conversations.freshness.stale || tickets.freshness.stale,
    fetchedAt: Math.min(conversations.freshness.fetchedAt, tickets.freshness.fetchedAt),
  };
  return { unread, freshness };
}
