/**
 * Retries of KurrentDB appends that met a leader change: "not leader" (a follower answered, naming the
 * leader) or "unavailable" (a node starting, electing, or a connection lost). The client reconnects by
 * itself on those errors, to the leader it was told of or by rediscovery, on its next call; the adapter
 * only has to send the append again. That is safe: each attempt first looks for the batch's event ids
 * where the expected revision says it would stand, and the server deduplicates ids itself, so an append
 * whose first attempt landed before its answer was lost is answered, not written again.
 */
import { NotLeaderError, UnavailableError } from '@kurrent/kurrentdb-client';
import type { Logger } from 'pino';
import { isAborted, sleep } from '../../lib/abortable.ts';
import { retryDelayMs, type RetryPolicy } from '../../lib/backoff.ts';

/** Attempts in all, and the jittered, doubling wait between two (`src/lib/backoff.ts`). */
export type AppendRetryPolicy = RetryPolicy;

/**
 * Up to 8 retries, waiting 3.5 to 7 s in all (the jitter takes off up to half of each step): longer than a
 * KurrentDB election usually takes.
 */
export const APPEND_RETRY: AppendRetryPolicy = { maxAttempts: 9, baseDelayMs: 50, maxDelayMs: 2_000 };

export const isLeaderChange = (error: unknown): boolean =>
  error instanceof NotLeaderError || error instanceof UnavailableError;

/** What an append still waiting to be retried rejects with once the store is closed. */
export class StoreClosedError extends Error {
  constructor(cause: unknown) {
    super('event store closed while an append waited to be retried', { cause });
    this.name = 'StoreClosedError';
  }
}

/**
 * Runs `attempt` until it succeeds, fails otherwise than by a leader change, or has made its attempts.
 * Once `closed` aborts it makes no further attempt and rejects with `StoreClosedError` at once, even in
 * the middle of a wait.
 */
export async function retryLeaderChanges<T>(
  attempt: () => Promise<T>,
  policy: AppendRetryPolicy,
  logger: Logger,
  closed: AbortSignal,
): Promise<T> {
  for (let failed = 1; ; failed++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isLeaderChange(error)) throw error;
      // Closing cancels the call in flight, which may come back as "unavailable": not worth a retry.
      if (isAborted(closed)) throw new StoreClosedError(error);
      if (failed >= policy.maxAttempts) throw error;
      const retryInMs = retryDelayMs(failed, policy);
      // No stream name: some carry a user id.
      logger.warn(
        {
          reason: error instanceof NotLeaderError ? 'not leader' : 'unavailable',
          retry: failed,
          retryInMs,
        },
        'event store: append met a leader change; retrying',
      );
      await sleep(retryInMs, closed);
      if (isAborted(closed)) throw new StoreClosedError(error);
    }
  }
}
