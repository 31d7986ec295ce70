import { ticketsSeen } from './support-reads.ts';
import { channelsForUser } from '../queries/channels.ts';
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

/** The badges of API.md's `/api/unread`, from the support cache and the channel read tables. */
export async function unreadOf(deps: Pick<ChatDeps, 'cache' | 'contacts' | 'pool'>, userId: string) {
  const [conversations, tickets, seen, channels] = await Promise.all([
    conversationsOf(deps, userId),
    ticketsOf(deps, userId),
    ticketsSeen(deps.pool, userId),
    channelsForUser(deps.pool, userId),
  ]);
  const unread: Unread = {
    conversations: conversations.items.reduce((sum, c) => sum + c.unreadCount, 0),
    tickets: tickets.items.filter((t) => (seen.get(t.id)?.getTime() ?? -1) < Date.parse(t.updatedAt)).length,
    channels: Object.fromEntries(channels.map((c) => [c.id, c.unread])),
  };
  const freshness = {
    stale: conversations.freshness.stale || tickets.freshness.stale,
    fetchedAt: Math.min(conversations.freshness.fetchedAt, tickets.freshness.fetchedAt),
  };
  return { unread, freshness };
}
