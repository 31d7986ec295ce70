/**
 * Retries of KurrentDB appends that met a leader change: "not leader" (a follower answered, naming the
 * leader) or "unavailable" (a node starting, electing, or a connection lost). The client reconnects by
 * itself on those errors, to the leader it was told of or by rediscovery, on its next call; the adapter
 * only has to send the append again. That is safe: each attempt first looks for the batch's event ids
 * where the expected revision says it would stand, and the server deduplicates ids itself, so an append
 * whose first attempt landed before its answer was lost is answered, not written again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { NotLeaderError, UnavailableError } from '@kurrent/kurrentdb-client';
import type { Logger } from 'pino';

export interface AppendRetryPolicy {
  /** Attempts after the first. */
  readonly retries: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

/** About 10 s in all: longer than a KurrentDB election usually takes. */
export const APPEND_RETRY: AppendRetryPolicy = { retries: 7, initialDelayMs: 50, maxDelayMs: 3_000 };

export const isLeaderChange = (error: unknown): boolean =>
  error instanceof NotLeaderError || error instanceof UnavailableError;

/** Runs `attempt` until it succeeds, fails otherwise than by a leader change, or runs out of retries. */
export async function retryLeaderChanges<T>(
  attempt: () => Promise<T>,
  policy: AppendRetryPolicy,
  logger: Logger,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isLeaderChange(error) || retry >= policy.retries) throw error;
      const retryInMs = Math.min(policy.initialDelayMs * 2 ** retry, policy.maxDelayMs);
      // No stream name: some carry a user id.
      logger.warn(
        {
          reason: error instanceof NotLeaderError ? 'not leader' : 'unavailable',
          retry: retry + 1,
          retryInMs,
        },
        'event store: append met a leader change; retrying',
      );
      await sleep(retryInMs);
    }
  }
}
