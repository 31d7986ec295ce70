import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { platformSchema, pushProviderSchema } from '../events/devices.ts';
import { type DeviceTelemetry, telemetryOrNone } from '../lib/device-telemetry.ts';

export const deviceRowSchema = z.object({
  userId: z.string(),
  token: z.string(),
  platform: platformSchema,
  provider: pushProviderSchema,
  registeredAt: z.date(),
  updatedAt: z.date(),
});
export type DeviceRow = z.infer<typeof deviceRowSchema> & {
  /** The device's newest telemetry, the hardware id as its digest; undefined when it never told any. */
  readonly telemetry: DeviceTelemetry | undefined;
};

const optional = z
  .string()
  .nullable()
  .transform((v) => v ?? undefined);
const row = z
  .object({
    user_id: z.string(),
    token: z.string(),
    platform: platformSchema,
    provider: pushProviderSchema,
    registered_at: z.coerce.date(),
    updated_at: z.coerce.date(),
    app_version: optional,
    os_version: optional,
    device_lang: optional,
    hardware_id_digest: optional,
  })
  .transform((r): DeviceRow => ({
    userId: r.user_id,
    token: r.token,
    platform: r.platform,
    provider: r.provider,
    registeredAt: r.registered_at,
    updatedAt: r.updated_at,
    telemetry: telemetryOrNone({
      appVersion: r.app_version,
      osVersion: r.os_version,
      deviceLang: r.device_lang,
      hardwareIdDigest: r.hardware_id_digest,
    }),
  }));

/** The users whose device lists show this token (normally one). */
export async function holdersOfToken(db: CommonQueryMethods, token: string): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ user_id: z.string() }))`
    SELECT user_id FROM devices WHERE token = ${token} ORDER BY user_id`);
}

/** Who holds each of these tokens now (a token reaches one person): one statement for a batch. */
export async function holdersOfTokens(
  db: CommonQueryMethods,
  tokens: readonly string[],
): Promise<ReadonlyMap<string, string>> {
  if (tokens.length === 0) return new Map();
  const rows = await db.any(sql.type(z.object({ token: z.string(), user_id: z.string() }))`
    SELECT token, user_id FROM devices WHERE token = ANY (${sql.array([...tokens], 'text')})`);
  return new Map(rows.map((r) => [r.token, r.user_id]));
}

/** A user's devices, oldest registration first: push fan-out reads this. */
export async function devicesOfUser(db: CommonQueryMethods, userId: string): Promise<readonly DeviceRow[]> {
  return db.any(sql.type(row)`
    SELECT user_id, token, platform, provider, registered_at, updated_at,
      app_version, os_version, device_lang, hardware_id_digest
    FROM devices WHERE user_id = ${userId} ORDER BY registered_at, token`);
}

/** The notification setting that governs a push (its column in notification_settings). */
export type SettingColumn = 'chat_messages' | 'ticket_updates' | 'system_notices';

export interface Recipient {
  readonly userId: string;
  readonly token: string;
  readonly platform: z.infer<typeof platformSchema>;
  /** The user turned this push's category off. */
  readonly muted: boolean;
}

const recipientRow = z
  .object({ user_id: z.string(), token: z.string(), platform: platformSchema, muted: z.boolean() })
  .transform((r) => ({ userId: r.user_id, token: r.token, platform: r.platform, muted: r.muted }));

/**
 * One page of a push's fan-out: every device of the next `users` users after `afterUserId` (in user id
 * order, among `userIds`, or among everyone with a device when that is null), each with whether its user
 * muted `setting`. Whole users per page, so a page's cursor is the last user id.
 */
export async function recipientsPage(
  db: CommonQueryMethods,
  page: {
    readonly userIds: readonly string[] | null;
    readonly afterUserId: string | null;
    readonly users: number;
    readonly setting: SettingColumn;
  },
): Promise<readonly Recipient[]> {
  const among = page.userIds === null ? null : sql.array([...page.userIds], 'text');
  return db.any(sql.type(recipientRow)`
    WITH page AS (
      SELECT DISTINCT user_id FROM devices
      WHERE (${page.afterUserId}::text IS NULL OR user_id > ${page.afterUserId})
        AND (${among}::text[] IS NULL OR user_id = ANY (${among}::text[]))
      ORDER BY user_id LIMIT ${page.users}
    )
    SELECT d.user_id, d.token, d.platform, NOT COALESCE(s.${sql.identifier([page.setting])}, true) AS muted
    FROM page JOIN devices d ON d.user_id = page.user_id
    LEFT JOIN notification_settings s ON s.user_id = d.user_id
    ORDER BY d.user_id, d.token`);
}
