import { type CommonQueryMethods, type IdentifierSqlToken, sql } from 'slonik';
import { z } from 'zod';

const deviceRow = z.object({
  user_id: z.string(),
  token: z.string(),
  platform: z.string(),
  provider: z.string(),
  registered_at: z.coerce.date(),
  updated_at: z.coerce.date(),
  app_version: z.string().nullable(),
  os_version: z.string().nullable(),
  device_lang: z.string().nullable(),
  hardware_id_digest: z.string().nullable(),
});
export type DeviceTableRow = z.infer<typeof deviceRow>;

/** Every row of a devices table (a generation's, or the public view), whole and in a stable order. */
export function deviceTableRows(
  db: CommonQueryMethods,
  table: IdentifierSqlToken,
): Promise<readonly DeviceTableRow[]> {
  return db.any(sql.type(deviceRow)`
    SELECT user_id, token, platform, provider, registered_at, updated_at,
      app_version, os_version, device_lang, hardware_id_digest
    FROM ${table} ORDER BY token, user_id`);
}
