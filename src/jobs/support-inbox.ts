import type { Logger } from 'pino';
import { type CommonQueryMethods, sql } from 'slonik';
import { awaitStop, isAborted, settledOrAborted, sleep } from '../lib/abortable.ts';
import type { SupportCacheInvalidator } from '../chat/invalidation.ts';
import { effectsOf, type NotificationEffects, notificationRecordSchema } from '../chat/notifications.ts';
import { recordConversationDuration } from '../chat/conversation-durations.ts';
import type { DatabasePool } from '../db/pool.ts';
import {
  claimDueNotifications,
  markAttemptFailed,
  markProcessed,
  nextAttemptInMs,
  type PendingNotification,
} from '../chat/processed-events.ts';
import { forgetContact, usersOfContacts } from '../chat/user-contacts.ts';
import type { PushDispatcher, PushRequest } from '../push/dispatcher.ts';
import { retryDelayMs, type RetryPolicy, validateRetryPolicy } from '../lib/backoff.ts';

export interface SupportInboxOptions {
  readonly pool: DatabasePool;
  readonly logger: Logger;
  readonly invalidator: SupportCacheInvalidator;
  readonly dispatcher: PushDispatcher;
  /** How often the inbox is looked at without a wake (rows other replicas stored, retries that fell due). */
  readonly intervalMs?: number;
  /** Tries per notification before it is left as failed; defaults to `defaultInboxRetry`. */
  readonly retry?: Partial<RetryPolicy>;
  /** How long one notification's effects may take before the try counts as failed (default 30 s). */
  readonly attemptTimeoutMs?: number;
}

export interface SupportInbox {
  /** Look at the inbox now (a delivery was just stored). */
  wake(): void;
  /** Stops after the notification in hand; claimed rows not yet started stay for the next worker. */
  stop(): Promise<void>;
}

/**
 * Ten tries, waits from about 1 s doubling to about 4 min (4 to 8.5 min in all): long enough to ride out a
 * Redis or push-service restart, short enough that a push that would arrive later than that is not sent.
 */
export const defaultInboxRetry: RetryPolicy = { maxAttempts: 10, baseDelayMs: 1_000, maxDelayMs: 300_000 };

/** Rows locked per transaction; small, since each may wait on a network call while the others are held. */
const BATCH = 10;
const MAX_ERROR_BACKOFF_MS = 30_000;

/**
 * What may be stored and logged about a failure: the error's class and code, never its message, which may
 * quote a query's values or a provider's answer.
 */
export function errorCodeOf(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown';
  const name = /^[\w.-]{1,60}$/.test(error.name) ? error.name : 'Error';
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[\w.-]{1,60}$/.test(code) ? `${name}:${code}` : name;
}

interface Worker {
  readonly pool: DatabasePool;
  readonly logger: Logger;
  readonly invalidator: SupportCacheInvalidator;
  readonly dispatcher: PushDispatcher;
  readonly policy: RetryPolicy;
  readonly attemptTimeoutMs: number;
}

/**
 * Database effects first, in the caller's transaction (undone if anything later fails, and idempotent
 * when redone); then the calls out, bounded in time. Contacts no user of ours maps to get no push.
 */
async function applyEffects(db: CommonQueryMethods, worker: Worker, effects: NotificationEffects) {
  if (effects.forgetContactId !== null) await forgetContact(db, effects.forgetContactId);
  if (effects.duration) await recordConversationDuration(db, effects.duration);
  const users = await usersOfContacts(
    db,
    effects.pushes.map((push) => push.contactId),
  );
  const requests = effects.pushes.flatMap(({ contactId, ...push }): PushRequest[] => {
    const userId = users.get(contactId);
    return userId === undefined ? [] : [{ ...push, userId }];
  });
  const callsOut = async () => {
    if (effects.invalidation) await worker.invalidator.invalidate(effects.invalidation);
    // One after another: each is idempotent by source id, so a retry after a partial failure is harmless.
    for (const request of requests) await worker.dispatcher.dispatch(request);
  };
  await settledOrAborted(callsOut(), AbortSignal.timeout(worker.attemptTimeoutMs));
  return requests.length;
}

/**
 * Runs `body` in a savepoint of the caller's transaction: if it throws, what it wrote is undone and the
 * transaction (and the rows it holds) carries on.
 */
async function inSavepoint<T>(db: CommonQueryMethods, body: () => Promise<T>): Promise<T> {
  await db.query(sql.unsafe`SAVEPOINT inbox_row`);
  try {
    const result = await body();
    await db.query(sql.unsafe`RELEASE SAVEPOINT inbox_row`);
    return result;
  } catch (error) {
    await db.query(sql.unsafe`ROLLBACK TO SAVEPOINT inbox_row`);
    throw error;
  }
}

async function processRow(db: CommonQueryMethods, worker: Worker, row: PendingNotification): Promise<void> {
  const { logger, policy } = worker;
  const about = { notificationId: row.notification_id, topic: row.topic };
  const record = notificationRecordSchema.safeParse(row.notification);
  if (!record.success) {
    // Nothing a retry can mend: the stored record itself is not one this code understands.
    await markAttemptFailed(db, row.notification_id, 'invalid_record', null);
    logger.error({ ...about, error: 'invalid_record' }, 'support webhook not processed: unreadable record');
    return;
  }
  try {
    const pushes = await inSavepoint(db, () => applyEffects(db, worker, effectsOf(record.data)));
    await markProcessed(db, row.notification_id);
    logger.debug({ ...about, pushes }, 'support webhook processed');
  } catch (error) {
    const attempts = row.attempts + 1;
    const code = errorCodeOf(error);
    if (attempts >= policy.maxAttempts) {
      await markAttemptFailed(db, row.notification_id, code, null);
      logger.error({ ...about, attempts, error: code }, 'support webhook failed for good');
      return;
    }
    const retryInMs = retryDelayMs(attempts, policy);
    await markAttemptFailed(db, row.notification_id, code, retryInMs);
    logger.warn({ ...about, attempts, error: code, retryInMs }, 'support webhook failed; will retry');
  }
}

/**
 * One transaction: claim a batch, work through it in order, commit. Answers how many rows it claimed.
 *
 * The transaction is opened by hand on a pooled connection, not with `pool.transaction()`: slonik refuses
 * pool queries made from inside a transaction's async context, and the dispatcher and the invalidator use
 * the pool while these rows stay locked. Any error before the COMMIT makes slonik destroy the connection,
 * which rolls the transaction back; no connection goes back to the pool inside one.
 */
async function processBatch(worker: Worker, stopping: AbortSignal): Promise<number> {
  return worker.pool.connect(async (connection) => {
    await connection.query(sql.unsafe`BEGIN`);
    const rows = await claimDueNotifications(connection, BATCH);
    for (const row of rows) {
      if (isAborted(stopping)) break;
      await processRow(connection, worker, row);
    }
    await connection.query(sql.unsafe`COMMIT`);
    return rows.length;
  });
}

/**
 * The support webhook worker (decision 019). Every replica runs one: rows are claimed with
 * `FOR UPDATE SKIP LOCKED`, so workers share the inbox without a leader, and a row is marked processed in
 * the transaction that holds it, so it is processed once (a crash before the commit leaves it to be done
 * again, which the idempotent effects allow). It looks at the inbox when it starts (what was stored before
 * a crash or restart), on `wake()`, when the earliest retry falls due, and at least every `intervalMs`
 * (10 s: what another replica stored and could not finish). An idle inbox costs a look every 10 s.
 */
/** The shortest wait between two looks that found nothing to claim. */
const MIN_LOOK_GAP_MS = 1_000;

export function startSupportInbox(options: SupportInboxOptions): SupportInbox {
  const intervalMs = options.intervalMs ?? 10_000;
  const policy: RetryPolicy = { ...defaultInboxRetry, ...options.retry };
  validateRetryPolicy(policy);
  const worker: Worker = {
    pool: options.pool,
    logger: options.logger,
    invalidator: options.invalidator,
    dispatcher: options.dispatcher,
    policy,
    attemptTimeoutMs: options.attemptTimeoutMs ?? 30_000,
  };
  const stopping = new AbortController();
  let wakeUp = new AbortController();

  const loop = (async () => {
    let errorBackoffMs = MIN_LOOK_GAP_MS;
    while (!isAborted(stopping.signal)) {
      // A wake while the inbox is being drained cuts the following wait short, so it is never lost.
      wakeUp = new AbortController();
      const woken = wakeUp.signal;
      let waitMs: number;
      try {
        let claimed = BATCH;
        while (claimed === BATCH && !isAborted(stopping.signal)) {
          claimed = await processBatch(worker, stopping.signal);
        }
        // A retry that falls due sooner than the next look is not kept waiting for it; one due already
        // was not claimable (another replica holds it), so it gets a second before the next try.
        const nextDueMs = (await nextAttemptInMs(options.pool)) ?? intervalMs;
        waitMs = Math.min(intervalMs, Math.max(MIN_LOOK_GAP_MS, nextDueMs));
        errorBackoffMs = MIN_LOOK_GAP_MS;
      } catch (error) {
        if (isAborted(stopping.signal)) break;
        waitMs = errorBackoffMs;
        options.logger.warn(
          { error: errorCodeOf(error), retryInMs: waitMs },
          'support inbox: cannot read the inbox; retrying',
        );
        errorBackoffMs = Math.min(errorBackoffMs * 2, MAX_ERROR_BACKOFF_MS);
      }
      await sleep(waitMs, AbortSignal.any([stopping.signal, woken]));
    }
  })();

  return {
    wake() {
      wakeUp.abort();
    },
    async stop() {
      stopping.abort();
      await awaitStop(loop, options.logger, 'the support inbox worker');
    },
  };
}
