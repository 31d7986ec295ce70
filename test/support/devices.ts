import { type CommonQueryMethods, type IdentifierSqlToken, sql } from 'slonik';
import { z } from 'zod';

const deviceRow = z.object({
  user_id: z.string(),
  token: z.string(),
  platform: z.string(),
  provider: z.string(),
  registered_at: z.coerce.date(),
  updated_at: z.coerce.date(),
});
export type DeviceTableRow = z.infer<typeof deviceRow>;

/** Every row of a devices table (a generation's, or the public view), whole and in a stable order. */
export function deviceTableRows(
  db: CommonQueryMethods,
  table: IdentifierSqlToken,
): Promise<readonly DeviceTableRow[]> {
  return db.any(sql.type(deviceRow)`
    SELECT user_id, token, platform, provider, registered_at, updated_at FROM ${table} ORDER BY token, user_id`);
}
