import { type TicketSummary, type TicketView, ticketSummary } from './ticket-views.ts';
import { type ChatDeps, type Freshness, type Ratings, ownedBy, withRating } from './conversations.ts';
import type { Owned } from './support-cache.ts';

type Found<T> = Extract<Owned<T>, { found: true }>;

/** The user's tickets, oldest first; none before they have a contact. */
export async function ticketsOf(
  deps: Pick<ChatDeps, 'cache' | 'contacts'>,
  userId: string,
): Promise<{ items: TicketSummary[]; freshness: Freshness }> {
  const contactId = await deps.contacts.knownContact(userId);
  if (contactId === null) return { items: [], freshness: { stale: false, fetchedAt: Date.now() } };
  const list = await deps.cache.tickets(contactId);
  return { items: list.value.items.map(ticketSummary), freshness: list };
}

/** A ticket the caller owns (404 unknown, 403 someone else's), through the read cache; nothing is marked read. */
export async function ownedTicket(
  deps: Pick<ChatDeps, 'cache' | 'contacts'>,
  userId: string,
  ticketId: string,
): Promise<{ record: Found<TicketView>; freshness: Freshness }> {
  const [contactId, read] = await Promise.all([
    deps.contacts.knownContact(userId),
    deps.cache.ticket(ticketId),
  ]);
  return { record: ownedBy(read, contactId, 'Ticket'), freshness: read };
}

/**
 * One ticket its owner asked for. Looking at it is reading it: its unread badge clears (decision 020).
 * The marker only moves forward, so a poll of an unchanged ticket changes nothing.
 */
export async function ticketFor(
  deps: Pick<ChatDeps, 'cache' | 'contacts' | 'reads'>,
  userId: string,
  ticketId: string,
): Promise<{ record: Found<TicketView>; freshness: Freshness }> {
  const owned = await ownedTicket(deps, userId, ticketId);
  await deps.reads.markTicketSeen(userId, ticketId, owned.record.view.updatedAt);
  return owned;
}

/** `ticketsOf` with the caller's ratings overlaid: `rated`, and `rating` when rated (decision 029). */
export async function ratedTicketsOf(
  deps: Pick<ChatDeps, 'cache' | 'contacts'>,
  ratings: Ratings,
  userId: string,
): Promise<{ items: TicketSummary[]; freshness: Freshness }> {
  const [{ items, freshness }, rated] = await Promise.all([ticketsOf(deps, userId), ratings.of(userId)]);
  const overlaid = items.map((item) => {
    const rating = rated.get(item.id);
    return rating === undefined ? item : { ...item, rated: true, rating };
  });
  return { items: overlaid, freshness };
}

/** `ticketFor` (which marks the ticket seen) with the caller's rating overlaid. */
export async function ratedTicketFor(
  deps: Pick<ChatDeps, 'cache' | 'contacts' | 'reads'>,
  ratings: Ratings,
  userId: string,
  ticketId: string,
): Promise<{ record: { readonly etag: string; readonly json: string }; freshness: Freshness }> {
  const [{ record, freshness }, rated] = await Promise.all([
    ticketFor(deps, userId, ticketId),
    ratings.of(userId),
  ]);
  return { record: withRating(record, rated.get(ticketId)), freshness };
}
