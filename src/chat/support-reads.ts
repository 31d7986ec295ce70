import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { ReadMarker } from './conversation-views.ts';

const markerRow = z.object({
  conversation_id: z.string(),
  last_read_message_id: z.string().nullable(),
  last_read_at: z.coerce.date(),
});

/** The user's read markers, by conversation. */
export async function readMarkers(db: CommonQueryMethods, userId: string): Promise<Map<string, ReadMarker>> {
  const rows = await db.any(sql.type(markerRow)`
    SELECT conversation_id, last_read_message_id, last_read_at FROM conversation_reads
    WHERE user_id = ${userId}`);
  return new Map(
    rows.map((r) => [
      r.conversation_id,
      { lastReadMessageId: r.last_read_message_id, lastReadAt: r.last_read_at },
    ]),
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

/** When the user last saw each ticket, by its `updated_at` then. */
export async function ticketsSeen(db: CommonQueryMethods, userId: string): Promise<Map<string, Date>> {
  const rows = await db.any(sql.type(z.object({ ticket_id: z.string(), seen_updated_at: z.coerce.date() }))`
    SELECT ticket_id, seen_updated_at FROM ticket_reads WHERE user_id = ${userId}`);
  return new Map(rows.map((r) => [r.ticket_id, r.seen_updated_at]));
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

/** Development only: forgets a user's read markers with their contact. */
export async function forgetSupportReads(db: CommonQueryMethods, userId: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM conversation_reads WHERE user_id = ${userId}`);
  await db.query(sql.unsafe`DELETE FROM ticket_reads WHERE user_id = ${userId}`);
}
