import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { NotificationRecord } from './notifications.ts';
import type { DatabasePool } from '../db/pool.ts';

// The support webhook inbox (decision 019): plain state, one row per Intercom notification id.

/** Stores a verified notification's minimal record; answers false when that id was stored before. */
export async function storeNotification(
  db: CommonQueryMethods,
  record: NotificationRecord,
): Promise<boolean> {
  const stored = await db.maybeOneFirst(sql.type(z.object({ stored: z.boolean() }))`
    INSERT INTO processed_events (notification_id, topic, notification)
    VALUES (${record.notificationId}, ${record.topic}, ${sql.jsonb(record)})
    ON CONFLICT (notification_id) DO NOTHING
    RETURNING true AS stored`);
  return stored === true;
}

const pendingRow = z.object({
  notification_id: z.string(),
  topic: z.string(),
  // Checked by the caller, row by row: one row of an older shape must not stop the others.
  notification: z.unknown(),
  attempts: z.number().int(),
});
export type PendingNotification = z.infer<typeof pendingRow>;

/**
 * Locks up to `limit` due, unfinished rows, oldest first, for the calling transaction. Rows another
 * transaction holds are skipped, not waited for, so several workers share the inbox and each row is
 * worked on by one of them at a time.
 */
export async function claimDueNotifications(
  tx: CommonQueryMethods,
  limit: number,
): Promise<readonly PendingNotification[]> {
  return tx.any(sql.type(pendingRow)`
    SELECT notification_id, topic, notification, attempts FROM processed_events
    WHERE processed_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
    ORDER BY received_at, notification_id
    LIMIT ${limit}
    FOR UPDATE SKIP LOCKED`);
}

export async function markProcessed(tx: CommonQueryMethods, notificationId: string): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE processed_events
    SET processed_at = now(), attempts = attempts + 1, last_error = NULL
    WHERE notification_id = ${notificationId}`);
}

/** A failed try: counted, with its error code; tried again after `retryInMs`, or never when null. */
export async function markAttemptFailed(
  tx: CommonQueryMethods,
  notificationId: string,
  errorCode: string,
  retryInMs: number | null,
): Promise<void> {
  const code = errorCode.slice(0, 200);
  const next =
    retryInMs === null
      ? sql.fragment`failed_at = now()`
      : sql.fragment`next_attempt_at = now() + make_interval(secs => ${retryInMs / 1000})`;
  await tx.query(sql.unsafe`
    UPDATE processed_events SET attempts = attempts + 1, last_error = ${code}, ${next}
    WHERE notification_id = ${notificationId}`);
}

/** Milliseconds until the earliest pending row falls due (0 when one is due), null when none waits. */
export async function nextAttemptInMs(db: CommonQueryMethods): Promise<number | null> {
  // GREATEST would turn "no row" (NULL) into 0: the floor is taken here instead.
  const ms = await db.oneFirst(sql.type(z.object({ ms: z.number().nullable() }))`
    SELECT (extract(epoch FROM min(next_attempt_at) - now()) * 1000)::int AS ms
    FROM processed_events WHERE processed_at IS NULL AND failed_at IS NULL`);
  return ms === null ? null : Math.max(0, ms);
}

/** Rows stored and not yet processed or given up on: the inbox's depth. */
export async function countPendingNotifications(db: CommonQueryMethods): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM processed_events WHERE processed_at IS NULL AND failed_at IS NULL`);
}

/**
 * Deletes finished rows (processed or failed) received before `before`, in slices so no statement holds
 * many row locks for long. Rows still pending are kept whatever their age. Answers how many went.
 */
export async function deleteFinishedNotifications(pool: DatabasePool, before: Date): Promise<number> {
  const SLICE = 5_000;
  let deleted = 0;
  for (;;) {
    const n = await pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      WITH gone AS (
        DELETE FROM processed_events WHERE notification_id IN (
          SELECT notification_id FROM processed_events
          WHERE received_at < ${before.toISOString()}::timestamptz
            AND (processed_at IS NOT NULL OR failed_at IS NOT NULL)
          LIMIT ${SLICE})
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`);
    deleted += n;
    if (n < SLICE) return deleted;
  }
}

/**
 * Deletes the inbox rows that name an erased contact, answering how many went. A pending row that also
 * names another contact stays, for that contact's effects; it finds no user for this one.
 */
export async function forgetContactNotifications(db: CommonQueryMethods, contactId: string): Promise<number> {
  // No index serves this: erasures are rare, and retention keeps the table to about a week of webhooks.
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`
    WITH gone AS (
      DELETE FROM processed_events
      WHERE (notification @> ${sql.jsonb({ contactId })} OR notification @> ${sql.jsonb({ contactIds: [contactId] })})
        AND (processed_at IS NOT NULL OR failed_at IS NOT NULL
          OR NOT EXISTS (
            SELECT 1 FROM jsonb_array_elements_text(notification -> 'contactIds') AS other (id)
            WHERE other.id <> ${contactId}))
      RETURNING 1)
    SELECT count(*)::int AS n FROM gone`);
}
