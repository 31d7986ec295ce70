import pg from 'pg';
import type { Logger } from 'pino';
import { isAborted, sleep } from '../lib/abortable.ts';
import { describeError } from '../lib/error-text.ts';

export interface Leadership {
  /** Aborts when the lock is lost (its connection dropped) or released. */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

export interface LeaderLockOptions {
  readonly connectionString: string;
  readonly key: string;
  readonly logger: Logger;
  /** How often a waiting replica tries again to take over. */
  readonly retryMs?: number;
}

/**
 * One holder across every process: a session-level advisory lock on a connection of its own (the pool's
 * connections are shared and keep no session state). When the holder dies, PostgreSQL ends its session,
 * the lock is freed, and the next replica's try takes over. Resolves null if `signal` aborts first.
 */
export async function becomeLeader(
  options: LeaderLockOptions,
  signal: AbortSignal,
): Promise<Leadership | null> {
  const retryMs = options.retryMs ?? 1_000;
  while (!signal.aborted) {
    const client = new pg.Client({ connectionString: options.connectionString });
    const lost = new AbortController();
    client.on('error', (error) => {
      options.logger.warn({ err: error, lock: options.key }, 'leader lock connection lost');
      lost.abort();
    });
    client.on('end', () => {
      lost.abort();
    });
    try {
      await client.connect();
      while (!isAborted(signal) && !isAborted(lost.signal)) {
        const { rows } = await client.query<{ held: boolean }>(
          'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held',
          [options.key],
        );
        if (rows[0]?.held) {
          return {
            lost: lost.signal,
            release: async () => {
              lost.abort();
              await client.end().catch(() => undefined);
            },
          };
        }
        await sleep(retryMs, signal);
      }
    } catch (error) {
      if (!isAborted(signal)) {
        options.logger.warn(
          { err: error, lock: options.key },
          'leader lock: cannot reach the database; retrying',
        );
      }
    }
    await client.end().catch(() => undefined);
    await sleep(retryMs, signal);
  }
  return null;
}

export interface LeaderLoopOptions extends LeaderLockOptions {
  /** Names the loop in its log lines: `projection`, `processor`. */
  readonly kind: string;
  readonly name: string;
  /** The first wait after an error in `step`; it doubles up to 10 s. */
  readonly errorBackoffMs?: number;
  /** Told when this process starts and stops leading. */
  readonly onLeadership?: (leading: boolean) => void;
}

const MAX_ERROR_BACKOFF_MS = 10_000;

/**
 * Runs `step` over and over while this process holds the lock, until `signal` aborts. An error in
 * `step` (a lost database, say) backs off and gives up the lock, so another replica may take over;
 * when the lock's connection drops, `leading` aborts and the loop goes back to waiting for the lock.
 */
export async function runAsLeader(
  options: LeaderLoopOptions,
  signal: AbortSignal,
  step: (leading: AbortSignal) => Promise<void>,
): Promise<void> {
  const { logger, kind, name } = options;
  const firstBackoffMs = options.errorBackoffMs ?? 200;
  let backoffMs = firstBackoffMs;
  while (!isAborted(signal)) {
    const leadership = await becomeLeader(options, signal);
    if (!leadership) return;
    options.onLeadership?.(true);
    logger.info({ [kind]: name }, `${kind}: active runner here`);
    const leading = AbortSignal.any([signal, leadership.lost]);
    try {
      while (!isAborted(leading)) {
        await step(leading);
        backoffMs = firstBackoffMs;
      }
    } catch (error) {
      if (!isAborted(signal)) {
        logger.warn(
          { [kind]: name, reason: describeError(error), retryInMs: backoffMs },
          `${kind}: retrying after an error`,
        );
        await sleep(backoffMs, signal);
        backoffMs = Math.min(backoffMs * 2, MAX_ERROR_BACKOFF_MS);
      }
    } finally {
      options.onLeadership?.(false);
      await leadership.release();
    }
  }
}
