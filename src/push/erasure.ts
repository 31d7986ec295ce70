import { type CommonQueryMethods, sql } from 'slonik';
import type { JobQueue } from '../db/job-queue.ts';
import type { DatabasePool } from '../db/pool.ts';
import { type ErasedJobs, eraseUserJobs, type RunningJobsWait } from './erasure-jobs.ts';
import { deviceKey } from './queues.ts';

export interface PushErasureDeps {
  readonly pool: DatabasePool;
  readonly boss: JobQueue;
  /** How long to wait for jobs being worked that name the user (tests shorten it). */
  readonly runningJobsWait?: RunningJobsWait;
}

export interface PushErasureTarget {
  readonly userId: string;
  /** The user's device tokens as the devices table held them before the erasure. */
  readonly tokens: readonly string[];
}

export interface PushErasure {
  readonly jobs: ErasedJobs;
  /** Rows deleted or detached across the push tables. */
  readonly rows: number;
}

const text = (values: readonly string[]) => sql.array([...values], 'text');

/** The user's deliveries: a send job in hand skips a device whose delivery is no longer queued. */
async function forgetDeliveries(db: CommonQueryMethods, userId: string, keys: readonly string[]) {
  const deleted = await db.query(sql.unsafe`
    DELETE FROM push_deliveries WHERE user_id = ${userId} OR device_key = ANY (${text(keys)})`);
  return deleted.rowCount;
}

/** Everything else the push tables hold about the user or their devices (devices by key, never by token). */
async function forgetRows(db: CommonQueryMethods, userId: string, keys: readonly string[]) {
  const statements = [
    sql.unsafe`DELETE FROM push_log WHERE user_id = ${userId}`,
    // A finished fan-out's cursor names the last user it reached; a running one still needs its own.
    sql.unsafe`UPDATE push_log SET cursor_user_id = NULL
      WHERE cursor_user_id = ${userId} AND fanned_out_at IS NOT NULL`,
    sql.unsafe`DELETE FROM push_device_refusals WHERE device_key = ANY (${text(keys)})`,
    sql.unsafe`DELETE FROM push_messenger_pace WHERE chat_key = ANY (${text(keys)})`,
    sql.unsafe`DELETE FROM notification_settings WHERE user_id = ${userId}`,
    // A notice to chosen users keeps the others; an emptied list stays a list (nobody), not null (everyone).
    sql.unsafe`UPDATE push_notices SET user_ids = array_remove(user_ids, ${userId})
      WHERE ${userId} = ANY (user_ids)`,
  ];
  let rows = await forgetDeliveries(db, userId, keys);
  for (const statement of statements) rows += (await db.query(statement)).rowCount;
  return rows;
}

/**
 * Removes what the push side holds about an erased user (decision 048): notification settings, the log of
 * pushes to them, deliveries to them or their devices, their chats' refusals and pace, their place in
 * notices, and every queued push job naming them or their devices. Safe to run again.
 *
 * No push reaches the user's devices once it resolves, provided the devices projection has applied the
 * erasure first (the caller waits for it): a job that already holds a device (a broadcast fans out into
 * jobs of up to 500 devices) is trimmed while queued, waited for while worked, and a send job made later
 * from a page read before the projection moved on finds the device gone at send time and skips it.
 */
export async function erasePushData(deps: PushErasureDeps, target: PushErasureTarget): Promise<PushErasure> {
  const { userId } = target;
  const keys = [...new Set(target.tokens.map(deviceKey))];
  // First: a send job that starts from now on leaves out devices whose delivery is no longer queued.
  let rows = await forgetDeliveries(deps.pool, userId, keys);
  const jobs = await eraseUserJobs(deps.boss, userId, new Set(keys), deps.runningJobsWait);
  rows += await deps.pool.transaction((tx) => forgetRows(tx, userId, keys));
  return { jobs, rows };
}
