import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { KEY_RETENTION_HOURS } from '../db/idempotency-keys.ts';
import { type LeaderLocks, runAsLeader } from '../db/leader-lock.ts';
import type { DatabasePool } from '../db/pool.ts';
import { CLICKS_HORIZON, raiseRetentionHorizon } from '../db/retention-horizons.ts';
import { removeStaleTempFiles } from '../integrations/storage/local-temp.ts';
import { awaitStop, isAborted, sleep } from '../lib/abortable.ts';
import { describeError } from '../lib/error-text.ts';
import { noProgress, type RetentionProgress, retentionMetrics } from './retention-metrics.ts';
import {
  ADMIN_LOGS,
  CLICKS,
  IDEMPOTENCY_KEYS,
  PRUNE_BATCH_SIZE,
  type PrunedTable,
  pruneOlderThan,
} from './retention-tables.ts';

const HOUR_MS = 3_600_000;
const MAX_TIMER_MS = 2 ** 31 - 1;
const DAY_MS = 24 * HOUR_MS;

/** A temporary upload file untouched this long belongs to a write that died (decision 028). */
export const TEMP_FILE_MAX_AGE_MS = HOUR_MS;

export interface PruneOptions {
  readonly pool: DatabasePool;
  readonly logger: Logger;
  /** DATA_RETENTION_DAYS; undefined keeps clicks and admin logs forever. */
  readonly retentionDays: number | undefined;
  readonly now: Date;
  /** The local storage's directory, whose temporary files are swept; absent with S3. */
  readonly uploadDir?: string | undefined;
  readonly batchSize?: number;
  readonly progress?: RetentionProgress;
}

export interface PruneReport {
  /** Rows deleted per table; a table absent was not looked at (no DATA_RETENTION_DAYS). */
  readonly rows: Readonly<Record<string, number>>;
  readonly tempFiles: number;
}

const ago = (now: Date, ms: number) => new Date(now.getTime() - ms);

/**
 * One retention pass: clicks and admin logs older than `retentionDays` (when set), idempotency keys past
 * their window, and temporary upload files a crashed write left. Each table goes in bounded batches.
 */
export async function pruneOnce(options: PruneOptions): Promise<PruneReport> {
  const { pool, now, retentionDays } = options;
  const progress = options.progress ?? noProgress;
  const batchSize = options.batchSize ?? PRUNE_BATCH_SIZE;
  const rows: Record<string, number> = {};
  const prune = async (table: PrunedTable, before: Date) => {
    rows[table.name] = await pruneOlderThan(pool, table, before, batchSize, (n) => {
      progress.rowsPruned(table.name, n);
    });
  };
  if (retentionDays !== undefined) {
    const before = ago(now, retentionDays * DAY_MS);
    // The horizon first: from then on the clicks projection, live or rebuilding, skips what goes below.
    await prune(CLICKS, await raiseRetentionHorizon(pool, CLICKS_HORIZON, before));
    await prune(ADMIN_LOGS, before);
  }
  await prune(IDEMPOTENCY_KEYS, ago(now, KEY_RETENTION_HOURS * HOUR_MS));
  const tempFiles = await sweepTempFiles(options, progress);
  return { rows, tempFiles };
}

/** A folder the sweep cannot read is logged, not retried: the rows were the pass's work that matters. */
async function sweepTempFiles(options: PruneOptions, progress: RetentionProgress): Promise<number> {
  if (options.uploadDir === undefined) return 0;
  try {
    const removed = await removeStaleTempFiles(options.uploadDir, ago(options.now, TEMP_FILE_MAX_AGE_MS));
    if (removed > 0) progress.tempFilesRemoved(removed);
    return removed;
  } catch (error) {
    options.logger.warn({ reason: describeError(error) }, 'retention: cannot sweep temporary uploads');
    return 0;
  }
}

export interface RetentionJobOptions {
  readonly pool: DatabasePool;
  /** This process's leader locks (one connection for every loop). */
  readonly locks: LeaderLocks;
  readonly logger: Logger;
  /** Where `retention_rows_pruned_total{table}` and `retention_temp_files_removed_total` go. */
  readonly registry?: Registry;
  readonly retentionDays: number | undefined;
  readonly uploadDir?: string | undefined;
  readonly now?: () => Date;
  /** Between two passes (default a day). */
  readonly intervalMs?: number;
  /** Before the first pass, so that it does not compete with a start's catch-up (default a minute). */
  readonly firstRunDelayMs?: number;
  readonly batchSize?: number;
}

export interface RetentionJob {
  stop(): Promise<void>;
}

/**
 * The retention job (decision 028): a pass shortly after start, then every `intervalMs`, on the replica
 * holding its lock. A replica that takes the lock over runs a pass as soon as its own first delay is over,
 * so a restart or a failover costs an extra pass that finds little, and no day goes without one.
 */
export function startRetentionJob(options: RetentionJobOptions): RetentionJob {
  const { logger, retentionDays } = options;
  const intervalMs = options.intervalMs ?? DAY_MS;
  const now = options.now ?? (() => new Date());
  const progress = options.registry ? retentionMetrics(options.registry) : noProgress;
  let nextPassAt = Date.now() + (options.firstRunDelayMs ?? 60_000);
  const stopping = new AbortController();
  const loop = runAsLeader(
    {
      locks: options.locks,
      key: 'job:retention',
      logger,
      kind: 'job',
      name: 'retention',
    },
    stopping.signal,
    async (leading) => {
      // setTimeout fires at once past 2^31 - 1 ms (about 24.8 days): a longer wait is taken in steps.
      await sleep(Math.min(Math.max(0, nextPassAt - Date.now()), MAX_TIMER_MS), leading);
      if (isAborted(leading) || Date.now() < nextPassAt) return;
      const report = await pruneOnce({
        pool: options.pool,
        logger,
        retentionDays,
        now: now(),
        uploadDir: options.uploadDir,
        batchSize: options.batchSize ?? PRUNE_BATCH_SIZE,
        progress,
      });
      logger.info({ ...report, retentionDays: retentionDays ?? null }, 'retention: pass done');
      nextPassAt = Date.now() + intervalMs;
    },
  );
  return {
    stop: async () => {
      stopping.abort();
      await awaitStop(loop, logger, 'the retention job');
    },
  };
}
