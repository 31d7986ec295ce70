import type { Logger } from 'pino';
import { awaitStop, sleep } from '../lib/abortable.ts';
import { type LeaderLocks, runAsLeader } from '../db/leader-lock.ts';
import type { DatabasePool } from '../db/pool.ts';
import { deleteFinishedNotifications } from '../chat/processed-events.ts';
import { deletePushesBefore } from '../push/push-log.ts';

export interface ProcessedEventsPrunerOptions {
  readonly pool: DatabasePool;
  /** This process's leader locks (one connection for every loop). */
  readonly locks: LeaderLocks;
  readonly logger: Logger;
  /** How often old rows are looked for (default hourly). */
  readonly intervalMs?: number;
  /** How long finished rows are kept (spec "Limits": about 7 days). */
  readonly retentionDays?: number;
}

export interface ProcessedEventsPruner {
  stop(): Promise<void>;
}

const DAY_MS = 86_400_000;

/**
 * Deletes inbox rows received more than `days` before `now` that are done with (processed, or failed for
 * good). Rows still waiting are kept whatever their age: deleting them would lose their effects. Answers
 * how many rows went. The push log, whose ids keep dispatch idempotent, goes after the same time.
 */
export async function pruneProcessedEvents(pool: DatabasePool, now: Date, days: number): Promise<number> {
  const before = new Date(now.getTime() - days * DAY_MS);
  await deletePushesBefore(pool, before);
  return deleteFinishedNotifications(pool, before);
}

/**
 * The retention job for processed_events: on the replica holding its lock, at its start and then every
 * `intervalMs`. A notification Intercom delivers again after its row is gone would be processed again;
 * Intercom retries within minutes, so a week leaves a wide margin.
 */
export function startProcessedEventsPruner(options: ProcessedEventsPrunerOptions): ProcessedEventsPruner {
  const intervalMs = options.intervalMs ?? 3_600_000;
  const retentionDays = options.retentionDays ?? 7;
  const stopping = new AbortController();
  const loop = runAsLeader(
    {
      locks: options.locks,
      key: 'job:prune-processed-events',
      logger: options.logger,
      kind: 'job',
      name: 'prune-processed-events',
    },
    stopping.signal,
    async (leading) => {
      const deleted = await pruneProcessedEvents(options.pool, new Date(), retentionDays);
      if (deleted > 0) options.logger.info({ deleted, retentionDays }, 'old processed_events pruned');
      await sleep(intervalMs, leading);
    },
  );
  return {
    stop: async () => {
      stopping.abort();
      await awaitStop(loop, options.logger, 'the processed-events pruner');
    },
  };
}
