import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from './pool.ts';

// Plain state (decision 003): the first response to a (caller, Idempotency-Key), kept for replay. It sits
// with the database machinery, as the retention horizons do, because two layers share it that may not
// import each other: the HTTP plugin claims keys, and the retention job forgets them past the window.

/** A claim not finished within this time is taken to have died with its process; a retry may take it over. */
const ABANDONED_AFTER_SECONDS = 60;
/**
 * Decision 009's window: keys older than this are forgotten, and the same key may then start a new request
 * (a claim takes the row over; the retention job deletes it).
 */
export const KEY_RETENTION_HOURS = 24;

export type Claim =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'replay'; readonly statusCode: number; readonly response: unknown }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'mismatch' };

const existing = z.object({
  request_fingerprint: z.string(),
  status_code: z.number().nullable(),
  response: z.unknown(),
});

/** Claims the key for this request, or says what an earlier request with it did. */
export async function claimIdempotencyKey(
  pool: DatabasePool,
  caller: string,
  key: string,
  fingerprint: string,
): Promise<Claim> {
  const claimed = await pool.maybeOneFirst(sql.type(z.object({ claimed: z.boolean() }))`
    INSERT INTO idempotency_keys AS k (caller, key, request_fingerprint)
    VALUES (${caller}, ${key}, ${fingerprint})
    ON CONFLICT (caller, key) DO UPDATE
      SET request_fingerprint = EXCLUDED.request_fingerprint, status_code = NULL, response = NULL,
          created_at = now()
      WHERE k.created_at < now() - make_interval(hours => ${KEY_RETENTION_HOURS})
         OR (k.status_code IS NULL AND k.request_fingerprint = EXCLUDED.request_fingerprint
             AND k.created_at < now() - make_interval(secs => ${ABANDONED_AFTER_SECONDS}))
    RETURNING true AS claimed`);
  if (claimed) return { kind: 'claimed' };
  const row = await pool.maybeOne(sql.type(existing)`
    SELECT request_fingerprint, status_code, response FROM idempotency_keys
    WHERE caller = ${caller} AND key = ${key}`);
  if (!row) return claimIdempotencyKey(pool, caller, key, fingerprint);
  if (row.request_fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (row.status_code === null) return { kind: 'in_progress' };
  return { kind: 'replay', statusCode: row.status_code, response: row.response };
}

export async function completeIdempotencyKey(
  pool: DatabasePool,
  caller: string,
  key: string,
  statusCode: number,
  response: string | null,
): Promise<void> {
  await pool.query(sql.unsafe`
    UPDATE idempotency_keys SET status_code = ${statusCode}, response = ${response}::jsonb
    WHERE caller = ${caller} AND key = ${key}`);
}

/** A request that failed on our side: the key is released so that the client's retry runs again. */
export async function releaseIdempotencyKey(pool: DatabasePool, caller: string, key: string): Promise<void> {
  await pool.query(sql.unsafe`
    DELETE FROM idempotency_keys WHERE caller = ${caller} AND key = ${key} AND status_code IS NULL`);
}
