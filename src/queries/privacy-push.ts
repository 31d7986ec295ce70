import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { platformSchema, pushProviderSchema } from '../events/devices.ts';
import { deliveryOutcomes, pushCategories } from '../lib/push-vocabulary.ts';
import { isoInstant } from './iso-instant.ts';

// The push side of the export (decision 048): the user's devices, settings, and what was pushed to them.
// A device is named by its masked token in `devices`; a delivery by its platform only, as the push tables
// keep a digest of the token and nothing else of it.

/** Enough of a token to tell devices apart, too little to push to one: its last 4 characters. */
function maskToken(token: string | null): string | null {
  if (token === null) return null;
  // A short token (a messenger chat id) would be mostly shown by its last 4: it shows nothing.
  return token.length > 8 ? `…${token.slice(-4)}` : '…';
}

const text = z.string().nullable();

const deviceRow = z
  .object({
    token: text,
    platform: platformSchema,
    provider: pushProviderSchema,
    registered_at: isoInstant,
    updated_at: isoInstant,
    app_version: text,
    os_version: text,
    device_lang: text,
    hardware_id_digest: text,
  })
  .transform((r) => ({
    token: maskToken(r.token),
    platform: r.platform,
    provider: r.provider,
    telemetry: {
      appVersion: r.app_version,
      osVersion: r.os_version,
      deviceLang: r.device_lang,
      hardwareIdDigest: r.hardware_id_digest,
    },
    registeredAt: r.registered_at,
    updatedAt: r.updated_at,
  }));

const settingsRow = z
  .object({
    chat_messages: z.boolean(),
    ticket_updates: z.boolean(),
    system_notices: z.boolean(),
    updated_at: isoInstant,
  })
  .transform((r) => ({
    chatMessages: r.chat_messages,
    ticketUpdates: r.ticket_updates,
    systemNotices: r.system_notices,
    updatedAt: r.updated_at,
  }));

/** A push about the user, with one of its deliveries to them (null: it reached no device of theirs). */
const pushRow = z.object({
  id: z.string(),
  kind: z.enum(['reply', 'post', 'notice']),
  category: z.enum(pushCategories),
  conversation_id: text,
  ticket_id: text,
  post_id: text,
  notice_id: text,
  csat: z.boolean(),
  // Older rows may hold outcomes no longer written: read as they are.
  outcome: z.string(),
  created_at: isoInstant,
  platform: platformSchema.nullable(),
  delivery_outcome: z.enum(deliveryOutcomes).nullable(),
  code: text,
  attempts: z.number().nullable(),
  delivery_updated_at: isoInstant.nullable(),
});
type PushRow = z.infer<typeof pushRow>;

export type DeviceHeld = z.infer<typeof deviceRow>;
export type NotificationSettingsHeld = z.infer<typeof settingsRow>;
export type PushHeld = ReturnType<typeof toPush>;

/** One delivery to a device of the user's, when the row has one. */
const deliveryOf = (r: PushRow) =>
  r.platform === null || r.delivery_outcome === null || r.attempts === null || r.delivery_updated_at === null
    ? []
    : [
        {
          platform: r.platform,
          outcome: r.delivery_outcome,
          code: r.code,
          attempts: r.attempts,
          updatedAt: r.delivery_updated_at,
        },
      ];

const toPush = (first: PushRow, rows: readonly PushRow[]) => ({
  kind: first.kind,
  category: first.category,
  conversationId: first.conversation_id,
  ticketId: first.ticket_id,
  postId: first.post_id,
  noticeId: first.notice_id,
  csat: first.csat,
  outcome: first.outcome,
  createdAt: first.created_at,
  deliveries: rows.flatMap(deliveryOf),
});

export const devicesOf = (db: CommonQueryMethods, userId: string) =>
  db.any(sql.type(deviceRow)`
    SELECT token, platform, provider, registered_at, updated_at,
      app_version, os_version, device_lang, hardware_id_digest
    FROM devices WHERE user_id = ${userId} ORDER BY registered_at, token`);

export const notificationSettingsOf = (db: CommonQueryMethods, userId: string) =>
  db.maybeOne(sql.type(settingsRow)`
    SELECT chat_messages, ticket_updates, system_notices, updated_at
    FROM notification_settings WHERE user_id = ${userId}`);

/**
 * The pushes about the user: those to them alone (a reply), and those to many (a post, a notice) that
 * reached a device of theirs, each with its deliveries to the user's devices only. One query, grouped here.
 */
export async function pushesOf(db: CommonQueryMethods, userId: string): Promise<readonly PushHeld[]> {
  const rows = await db.any(sql.type(pushRow)`
    SELECT l.id::text AS id, l.kind, l.category, l.conversation_id, l.ticket_id, l.post_id, l.notice_id,
      l.csat, l.outcome, l.created_at, d.platform, d.outcome AS delivery_outcome, d.code, d.attempts,
      d.updated_at AS delivery_updated_at
    FROM push_log l LEFT JOIN push_deliveries d ON d.source_id = l.source_id AND d.user_id = ${userId}
    WHERE l.user_id = ${userId} OR d.user_id IS NOT NULL
    ORDER BY l.created_at, l.id, d.platform, d.created_at, d.device_key`);
  const bySource = new Map<string, PushRow[]>();
  for (const row of rows) {
    const own = bySource.get(row.id);
    if (own === undefined) bySource.set(row.id, [row]);
    else own.push(row);
  }
  return [...bySource.values()].flatMap((own) => (own[0] === undefined ? [] : [toPush(own[0], own)]));
}
