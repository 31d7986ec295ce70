import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { platformSchema, pushProviderSchema } from '../events/devices.ts';

export const deviceRowSchema = z.object({
  userId: z.string(),
  token: z.string(),
  platform: platformSchema,
  provider: pushProviderSchema,
  registeredAt: z.date(),
  updatedAt: z.date(),
});
export type DeviceRow = z.infer<typeof deviceRowSchema>;

const row = z
  .object({
    user_id: z.string(),
    token: z.string(),
    platform: platformSchema,
    provider: pushProviderSchema,
    registered_at: z.coerce.date(),
    updated_at: z.coerce.date(),
  })
  .transform((r) => ({
    userId: r.user_id,
    token: r.token,
    platform: r.platform,
    provider: r.provider,
    registeredAt: r.registered_at,
    updatedAt: r.updated_at,
  }));

/** The users whose device lists show this token (normally one). */
export async function holdersOfToken(db: CommonQueryMethods, token: string): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ user_id: z.string() }))`
    SELECT user_id FROM devices WHERE token = ${token} ORDER BY user_id`);
}

/** A user's devices, oldest registration first: push fan-out reads this. */
export async function devicesOfUser(db: CommonQueryMethods, userId: string): Promise<readonly DeviceRow[]> {
  return db.any(sql.type(row)`
    SELECT user_id, token, platform, provider, registered_at, updated_at
    FROM devices WHERE user_id = ${userId} ORDER BY registered_at, token`);
}
