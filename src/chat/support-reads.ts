import { LRUCache } from 'lru-cache';
import { batched, groupedBy } from '../lib/batched.ts';
import { keptWhileAsked } from '../lib/kept-while-asked.ts';
import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../db/pool.ts';
import type { ReadMarker } from './conversation-views.ts';
import { type ChangeStamps, supportScopes } from './stamps.ts';

const markerRow = z.object({
  user_id: z.string(),
  conversation_id: z.string(),
  last_read_message_id: z.string().nullable(),
  last_read_at: z.coerce.date(),
});

/** Each user's read markers, by conversation, in the order asked. */
export async function readMarkersOfUsers(
  db: CommonQueryMethods,
  userIds: readonly string[],
): Promise<readonly Map<string, ReadMarker>[]> {
  const rows = await db.any(sql.type(markerRow)`
    SELECT user_id, conversation_id, last_read_message_id, last_read_at FROM conversation_reads
    WHERE user_id = ANY (${sql.array([...userIds], 'text')})`);
  return groupedBy(
    userIds,
    rows,
    (r) => r.user_id,
    (own) =>
      new Map(
        own.map((r) => [
          r.conversation_id,
          { lastReadMessageId: r.last_read_message_id, lastReadAt: r.last_read_at },
        ]),
      ),
  );
}

/** Moves the watermark forward only: a late or repeated request for an older message changes nothing. */
export async function markConversationRead(
  db: CommonQueryMethods,
  userId: string,
  conversationId: string,
  message: { readonly id: string; readonly createdAt: string },
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO conversation_reads (user_id, conversation_id, last_read_message_id, last_read_at)
    VALUES (${userId}, ${conversationId}, ${message.id}, ${message.createdAt}::timestamptz)
    ON CONFLICT (user_id, conversation_id) DO UPDATE
      SET last_read_message_id = EXCLUDED.last_read_message_id, last_read_at = EXCLUDED.last_read_at,
          updated_at = now()
      WHERE conversation_reads.last_read_at <= EXCLUDED.last_read_at`);
}

const seenRow = z.object({ user_id: z.string(), ticket_id: z.string(), seen_updated_at: z.coerce.date() });

/** When each user last saw each of their tickets (by its `updated_at` then), in the order asked. */
export async function ticketsSeenOfUsers(
  db: CommonQueryMethods,
  userIds: readonly string[],
): Promise<readonly Map<string, Date>[]> {
  const rows = await db.any(sql.type(seenRow)`
    SELECT user_id, ticket_id, seen_updated_at FROM ticket_reads
    WHERE user_id = ANY (${sql.array([...userIds], 'text')})`);
  return groupedBy(
    userIds,
    rows,
    (r) => r.user_id,
    (own) => new Map(own.map((r) => [r.ticket_id, r.seen_updated_at])),
  );
}

export async function markTicketSeen(
  db: CommonQueryMethods,
  userId: string,
  ticketId: string,
  updatedAt: string,
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO ticket_reads (user_id, ticket_id, seen_updated_at)
    VALUES (${userId}, ${ticketId}, ${updatedAt}::timestamptz)
    ON CONFLICT (user_id, ticket_id) DO UPDATE SET seen_updated_at = EXCLUDED.seen_updated_at
      WHERE ticket_reads.seen_updated_at < EXCLUDED.seen_updated_at`);
}

/** Forgets a user's read markers with their contact (the development wipe, an erasure). */
export async function forgetSupportReads(db: CommonQueryMethods, userId: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM conversation_reads WHERE user_id = ${userId}`);
  await db.query(sql.unsafe`DELETE FROM ticket_reads WHERE user_id = ${userId}`);
}

/** The read markers as polls use them: from memory while no write has moved them (decision 022). */
export interface SupportReads {
  markers(userId: string): Promise<ReadonlyMap<string, ReadMarker>>;
  seen(userId: string): Promise<ReadonlyMap<string, Date>>;
  markConversationRead(
    userId: string,
    conversationId: string,
    message: { readonly id: string; readonly createdAt: string },
  ): Promise<void>;
  /** Writes only when the marker moves: a poll of a ticket already seen costs no statement. */
  markTicketSeen(userId: string, ticketId: string, updatedAt: string): Promise<void>;
  /** The user's markers were deleted elsewhere (an erasure): no replica answers its copy of them again. */
  forget(userId: string): void;
}

/** Users whose markers this process keeps in memory, per kind. */
const REMEMBERED_USERS = 100_000;

/**
 * The markers of `conversation_reads` and `ticket_reads`, cached per user under the token of the user's
 * support-reads scope: a write through any replica moves it, so the next poll reads them again, and a poll
 * that changes nothing reads nothing.
 */
export function supportReads(pool: DatabasePool, stamps: ChangeStamps): SupportReads {
  const scope = supportScopes.reads;
  // Many users' first polls at once share one query (lib/batched.ts).
  const markersOf = batched((userIds: readonly string[]) => readMarkersOfUsers(pool, userIds));
  const seenOf = batched((userIds: readonly string[]) => ticketsSeenOfUsers(pool, userIds));
  const markers = new LRUCache<string, Map<string, ReadMarker>, string>({
    max: REMEMBERED_USERS,
    ...keptWhileAsked,
    fetchMethod: (_key, _stale, { context: userId }) => markersOf(userId),
  });
  const seen = new LRUCache<string, Map<string, Date>, string>({
    max: REMEMBERED_USERS,
    ...keptWhileAsked,
    fetchMethod: (_key, _stale, { context: userId }) => seenOf(userId),
  });
  const cached = async <T extends object>(cache: LRUCache<string, T, string>, userId: string) => {
    const key = `${stamps.of(scope(userId))}\n${userId}`;
    const found = cache.get(key) ?? (await cache.fetch(key, { context: userId }));
    if (found === undefined) throw new Error('support reads: no markers');
    return found;
  };
  const moved = (userId: string) => {
    stamps.announce('support-reads', null, [scope(userId)]);
  };
  return {
    markers: (userId) => cached(markers, userId),
    seen: (userId) => cached(seen, userId),
    async markConversationRead(userId, conversationId, message) {
      await markConversationRead(pool, userId, conversationId, message);
      moved(userId);
    },
    async markTicketSeen(userId, ticketId, updatedAt) {
      const known = (await cached(seen, userId)).get(ticketId);
      if (known !== undefined && known.getTime() >= Date.parse(updatedAt)) return;
      await markTicketSeen(pool, userId, ticketId, updatedAt);
      moved(userId);
    },
    forget: moved,
  };
}
