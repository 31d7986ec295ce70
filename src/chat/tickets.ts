import { type TicketSummary, ticketSummary } from './ticket-views.ts';
import {
  type ChatDeps,
  type Freshness,
  freshnessOfAll,
  type Ratings,
  ownedBy,
  withRating,
} from './conversations.ts';
import type { OwnedTicket } from './support-cache.ts';

type Found = Extract<OwnedTicket, { found: true }>;

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

/**
 * How many of the user's tickets hold something they have not seen (decision 020): a ticket never opened,
 * or one where the team replied or moved the state since it was last opened. Notes, tags and attribute
 * changes move Intercom's `updated_at` but show the user nothing, so they raise no badge. Each ticket is
 * read through the cache, so a warm poll costs no Intercom call.
 */
export async function unseenTicketsOf(
  deps: Pick<ChatDeps, 'cache' | 'contacts' | 'reads'>,
  userId: string,
): Promise<{ count: number; freshness: Freshness }> {
  const contactId = await deps.contacts.knownContact(userId);
  if (contactId === null) return { count: 0, freshness: { stale: false, fetchedAt: Date.now() } };
  const [list, seen] = await Promise.all([deps.cache.tickets(contactId), deps.reads.seen(userId)]);
  const reads = await Promise.all(list.value.items.map((item) => deps.cache.ticket(item.id)));
  let count = 0;
  for (const { value } of reads) {
    if (!value.found || !value.ownerIds.includes(contactId)) continue;
    const seenAt = seen.get(value.view.id)?.getTime();
    const changedAt = value.derived.lastTeamPartAt;
    if (seenAt === undefined || (changedAt !== null && changedAt > seenAt)) count += 1;
  }
  return { count, freshness: freshnessOfAll([list, ...reads]) };
}

/** A ticket the caller owns (404 unknown, 403 someone else's), through the read cache; nothing is marked read. */
export async function ownedTicket(
  deps: Pick<ChatDeps, 'cache' | 'contacts'>,
  userId: string,
  ticketId: string,
): Promise<{ record: Found; freshness: Freshness }> {
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
): Promise<{ record: Found; freshness: Freshness }> {
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
