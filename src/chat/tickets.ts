import { type TicketSummary, type TicketView, ticketSummary } from './ticket-views.ts';
import { type ChatDeps, type Freshness, ownedBy } from './conversations.ts';
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

/**
 * One ticket its owner asked for. Looking at it is reading it: its unread badge clears (decision 020).
 * The marker only moves forward, so a poll of an unchanged ticket changes nothing.
 */
export async function ticketFor(
  deps: Pick<ChatDeps, 'cache' | 'contacts' | 'reads'>,
  userId: string,
  ticketId: string,
): Promise<{ record: Found<TicketView>; freshness: Freshness }> {
  const [contactId, read] = await Promise.all([
    deps.contacts.knownContact(userId),
    deps.cache.ticket(ticketId),
  ]);
  const record = ownedBy(read, contactId, 'Ticket');
  await deps.reads.markTicketSeen(userId, ticketId, record.view.updatedAt);
  return { record, freshness: read };
}
