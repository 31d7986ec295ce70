import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { ConversationDuration } from './notifications.ts';

/**
 * Records how long a conversation ran until a close. Once per close: a redelivered or replayed close
 * webhook meets the unique (conversation, closed_at) and changes nothing. Answers whether a row was added.
 */
export async function recordConversationDuration(
  db: CommonQueryMethods,
  duration: ConversationDuration,
): Promise<boolean> {
  const added = await db.maybeOneFirst(sql.type(z.object({ added: z.boolean() }))`
    INSERT INTO conversation_durations (conversation_id, opened_at, closed_at, notification_id)
    VALUES (${duration.conversationId}, ${sql.timestamp(duration.openedAt)},
      ${sql.timestamp(duration.closedAt)}, ${duration.notificationId})
    ON CONFLICT (conversation_id, closed_at) DO NOTHING
    RETURNING true AS added`);
  return added === true;
}
