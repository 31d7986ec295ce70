import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../db/pool.ts';

// Plain state (not history), so it lives in a table reached directly; see docs/decisions/003.
export const notificationSettingsSchema = z
  .object({
    chatMessages: z.boolean().describe('pushes for replies in support chats'),
    ticketUpdates: z.boolean().describe('pushes for ticket replies, changes and resolutions'),
    systemNotices: z.boolean().describe('pushes for notices from the service and for new channel posts'),
  })
  .meta({ id: 'NotificationSettings' });

export type NotificationSettings = z.infer<typeof notificationSettingsSchema>;
export type NotificationSettingsPatch = Partial<NotificationSettings>;

export const defaultNotificationSettings: NotificationSettings = {
  chatMessages: true,
  ticketUpdates: true,
  systemNotices: true,
};

const row = z.object({
  chat_messages: z.boolean(),
  ticket_updates: z.boolean(),
  system_notices: z.boolean(),
});
const toSettings = (r: z.infer<typeof row>): NotificationSettings => ({
  chatMessages: r.chat_messages,
  ticketUpdates: r.ticket_updates,
  systemNotices: r.system_notices,
});

export async function readNotificationSettings(
  pool: DatabasePool,
  userId: string,
): Promise<NotificationSettings> {
  // A named prepared statement: parsed and planned once per connection, not on every read.
  const found = await pool.maybeOne(sql.prepared('read_notification_settings', row)`
    SELECT chat_messages, ticket_updates, system_notices
    FROM notification_settings WHERE user_id = ${userId}`);
  return found ? toSettings(found) : defaultNotificationSettings;
}

/** Applies a partial update atomically; fields absent from the patch keep their stored (or default) value. */
export async function updateNotificationSettings(
  pool: DatabasePool,
  userId: string,
  patch: NotificationSettingsPatch,
): Promise<NotificationSettings> {
  const value = (v: boolean | undefined) => (v === undefined ? null : v);
  const updated = await pool.one(sql.type(row)`
    INSERT INTO notification_settings AS s (user_id, chat_messages, ticket_updates, system_notices)
    VALUES (
      ${userId},
      COALESCE(${value(patch.chatMessages)}::boolean, true),
      COALESCE(${value(patch.ticketUpdates)}::boolean, true),
      COALESCE(${value(patch.systemNotices)}::boolean, true)
    )
    ON CONFLICT (user_id) DO UPDATE SET
      chat_messages = COALESCE(${value(patch.chatMessages)}::boolean, s.chat_messages),
      ticket_updates = COALESCE(${value(patch.ticketUpdates)}::boolean, s.ticket_updates),
      system_notices = COALESCE(${value(patch.systemNotices)}::boolean, s.system_notices),
      updated_at = now()
    RETURNING chat_messages, ticket_updates, system_notices`);
  return toSettings(updated);
}
