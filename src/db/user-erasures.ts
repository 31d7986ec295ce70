import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from './pool.ts';

// Plain state (decision 048): the erasures asked for and how far each got. It sits with the database
// machinery, as idempotency keys do, because two layers share it that may not import each other: the
// admin API asks for an erasure and reads its progress, the erasure job does the steps.

/** The steps of an erasure, in the order the job does them (decision 048 says why this order). */
export const erasureSteps = ['push', 'files', 'key', 'events', 'contact'] as const;
export type ErasureStep = (typeof erasureSteps)[number];

const progressRow = z.object({
  erasure_id: z.string(),
  user_id: z.string(),
  requested_by: z.string(),
  requested_at: z.coerce.date(),
  steps: z.partialRecord(z.enum(erasureSteps), z.iso.datetime()),
  finished_at: z.coerce.date().nullable(),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
});

export interface ErasureProgress {
  readonly erasureId: string;
  readonly userId: string;
  readonly requestedBy: string;
  readonly requestedAt: string;
  /** When each step was done; a step not listed is still to do. */
  readonly steps: Partial<Record<ErasureStep, string>>;
  readonly finishedAt: string | null;
  readonly attempts: number;
  /** Why the last attempt stopped (a class of error, never personal data); null when none failed. */
  readonly lastError: string | null;
}

const toProgress = (row: z.infer<typeof progressRow>): ErasureProgress => ({
  erasureId: row.erasure_id,
  userId: row.user_id,
  requestedBy: row.requested_by,
  requestedAt: row.requested_at.toISOString(),
  steps: row.steps,
  finishedAt: row.finished_at?.toISOString() ?? null,
  attempts: row.attempts,
  lastError: row.last_error,
});

const columns = sql.fragment`erasure_id, user_id, requested_by, requested_at, steps, finished_at, attempts,
  last_error`;

/** The user's latest erasure, if any was asked for. */
export async function latestErasure(pool: DatabasePool, userId: string): Promise<ErasureProgress | null> {
  const row = await pool.maybeOne(sql.type(progressRow)`
    SELECT ${columns} FROM user_erasures WHERE user_id = ${userId}
    ORDER BY requested_at DESC LIMIT 1`);
  return row ? toProgress(row) : null;
}

/**
 * Asks for the user's erasure, unless one is under way or the user holds nothing since the last one (no
 * data key, contact, device or notification setting): erasing twice is one erasure. Under a lock per user,
 * so two requests at once make one.
 */
export async function requestErasure(
  pool: DatabasePool,
  userId: string,
  requestedBy: string,
): Promise<{ readonly progress: ErasureProgress; readonly created: boolean }> {
  return pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`erasure:${userId}`}, 0))`);
    const last = await tx.maybeOne(sql.type(progressRow)`
      SELECT ${columns} FROM user_erasures WHERE user_id = ${userId} ORDER BY requested_at DESC LIMIT 1`);
    if (last && (last.finished_at === null || !(await holdsAnything(tx, userId)))) {
      return { progress: toProgress(last), created: false };
    }
    const row = await tx.one(sql.type(progressRow)`
      INSERT INTO user_erasures (erasure_id, user_id, requested_by)
      VALUES (${randomUUID()}, ${userId}, ${requestedBy}) RETURNING ${columns}`);
    return { progress: toProgress(row), created: true };
  });
}

/** Whether anything new of the user's is held since its last erasure finished. */
async function holdsAnything(db: Parameters<Parameters<DatabasePool['transaction']>[0]>[0], userId: string) {
  return db.exists(sql.unsafe`
    SELECT 1 WHERE EXISTS (SELECT 1 FROM data_keys WHERE user_id = ${userId})
      OR EXISTS (SELECT 1 FROM user_contacts WHERE user_id = ${userId})
      OR EXISTS (SELECT 1 FROM devices WHERE user_id = ${userId})
      OR EXISTS (SELECT 1 FROM notification_settings WHERE user_id = ${userId})`);
}

/** Erasures not finished yet, oldest first, whose next attempt is due. */
export async function dueErasures(pool: DatabasePool, limit: number): Promise<ErasureProgress[]> {
  const rows = await pool.any(sql.type(progressRow)`
    SELECT ${columns} FROM user_erasures
    WHERE finished_at IS NULL AND next_attempt_at <= now()
    ORDER BY requested_at LIMIT ${limit}`);
  return rows.map(toProgress);
}

export async function markStepDone(pool: DatabasePool, erasureId: string, step: ErasureStep): Promise<void> {
  await pool.query(sql.unsafe`
    UPDATE user_erasures SET steps = steps || jsonb_build_object(${step}::text, ${new Date().toISOString()}::text)
    WHERE erasure_id = ${erasureId}`);
}

export async function markFinished(pool: DatabasePool, erasureId: string): Promise<void> {
  await pool.query(sql.unsafe`
    UPDATE user_erasures SET finished_at = now(), last_error = NULL WHERE erasure_id = ${erasureId}`);
}

/** An attempt failed: tries again after a delay that grows with the attempts, up to an hour. */
export async function markAttemptFailed(
  pool: DatabasePool,
  erasureId: string,
  reason: string,
): Promise<void> {
  await pool.query(sql.unsafe`
    UPDATE user_erasures SET attempts = attempts + 1, last_error = ${reason},
      next_attempt_at = now() + least(interval '1 hour', interval '2 seconds' * power(2, attempts))
    WHERE erasure_id = ${erasureId}`);
}
