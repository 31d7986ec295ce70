import { type ChatDeps, conversationsOf, freshnessOfAll } from './conversations.ts';
import { unseenTicketsOf } from './tickets.ts';

export interface Unread {
  /** Messages from the team the user has not read, across every request. */
  readonly conversations: number;
  /** Tickets where the team replied or moved the state since the user last looked (decision 020). */
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
  const [conversations, tickets, channels] = await Promise.all([
    conversationsOf(deps, userId),
    unseenTicketsOf(deps, userId),
    deps.channelsUnread(userId),
  ]);
  const unread: Unread = {
    conversations: conversations.items.reduce((sum, c) => sum + c.unreadCount, 0),
    tickets: tickets.count,
    channels,
  };
  return { unread, freshness: freshnessOfAll([conversations.freshness, tickets.freshness]) };
}
