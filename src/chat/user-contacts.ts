import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../db/pool.ts';
import { groupedBy } from '../lib/batched.ts';

/** The Intercom contact of a user, once it is known. */
export async function contactOfUser(db: CommonQueryMethods, userId: string): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ contact_id: z.string() }))`
    SELECT contact_id FROM user_contacts WHERE user_id = ${userId}`);
}

/** The contacts of many users at once (null for a user without one), in the order asked. */
export async function contactsOfUsers(
  db: CommonQueryMethods,
  userIds: readonly string[],
): Promise<readonly (string | null)[]> {
  const rows = await db.any(sql.type(z.object({ user_id: z.string(), contact_id: z.string() }))`
    SELECT user_id, contact_id FROM user_contacts WHERE user_id = ANY (${sql.array([...userIds], 'text')})`);
  return groupedBy(
    userIds,
    rows,
    (r) => r.user_id,
    (found) => found[0]?.contact_id ?? null,
  );
}

export async function saveUserContact(
  db: CommonQueryMethods,
  userId: string,
  contactId: string,
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO user_contacts (user_id, contact_id) VALUES (${userId}, ${contactId})
    ON CONFLICT (user_id) DO NOTHING`);
}

/** The user's contact and the digest of the telemetry last written on it (null: none yet). */
export async function contactTelemetryOf(
  db: CommonQueryMethods,
  userId: string,
): Promise<{ readonly contactId: string; readonly telemetryDigest: string | null } | null> {
  const row = await db.maybeOne(sql.type(
    z.object({ contact_id: z.string(), telemetry_digest: z.string().nullable() }),
  )`
    SELECT contact_id, telemetry_digest FROM user_contacts WHERE user_id = ${userId}`);
  return row === null ? null : { contactId: row.contact_id, telemetryDigest: row.telemetry_digest };
}

/** Remembers what was written on the contact, if the user still maps to it. */
export async function saveContactTelemetry(
  db: CommonQueryMethods,
  userId: string,
  contactId: string,
  telemetryDigest: string,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE user_contacts SET telemetry_digest = ${telemetryDigest}
    WHERE user_id = ${userId} AND contact_id = ${contactId}`);
}

/**
 * Runs `body` while holding a lock on the user's contact, database-wide: replicas that meet a user's first
 * requests at once take turns, so one contact is created, not one each.
 */
export async function withUserContactLock<T>(
  pool: DatabasePool,
  userId: string,
  body: (tx: CommonQueryMethods) => Promise<T>,
): Promise<T> {
  return pool.transaction(async (tx) => {
    await tx.query(
      sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`user_contacts:${userId}`}, 0))`,
    );
    return body(tx);
  });
}

/** The users of those contacts that have one here, by contact id; contacts of no user of ours are absent. */
export async function usersOfContacts(
  db: CommonQueryMethods,
  contactIds: readonly string[],
): Promise<ReadonlyMap<string, string>> {
  if (contactIds.length === 0) return new Map();
  const rows = await db.any(sql.type(z.object({ user_id: z.string(), contact_id: z.string() }))`
    SELECT user_id, contact_id FROM user_contacts WHERE contact_id = ANY (${sql.array([...contactIds], 'text')})`);
  return new Map(rows.map((row) => [row.contact_id, row.user_id]));
}

/** Drops the mapping to a contact Intercom deleted; the user's next request finds or creates a new one. */
export async function forgetContact(db: CommonQueryMethods, contactId: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM user_contacts WHERE contact_id = ${contactId}`);
}

/** Drops the user's mapping only if it still names that contact (a concurrent renewal may have replaced it). */
export async function forgetUserContact(
  db: CommonQueryMethods,
  userId: string,
  contactId: string,
): Promise<void> {
  await db.query(
    sql.unsafe`DELETE FROM user_contacts WHERE user_id = ${userId} AND contact_id = ${contactId}`,
  );
}
