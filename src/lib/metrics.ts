import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';

/** How long a scrape waits for one gauge's read before it answers with the last values. */
export const SCRAPE_READ_TIMEOUT_MS = 2_000;

/**
 * Runs a gauge's scrape-time read. When the database is away the gauge keeps its last values and a
 * warning says why, rather than failing the whole /metrics answer. The read is also bounded in time: a
 * query queued in the pool while every connection attempt fails can wait for good (slonik 49 does not
 * always hand such a waiter an error), and a scrape must answer all the same.
 */
export async function readOrKeepLast(
  logger: Logger,
  what: string,
  read: () => Promise<void>,
  // Resolves when the read's time is up (SCRAPE_READ_TIMEOUT_MS, unless a test ends it itself).
  timeUp: (signal: AbortSignal) => Promise<void> = (signal) =>
    sleep(SCRAPE_READ_TIMEOUT_MS, undefined, { signal, ref: false }),
): Promise<void> {
  const timer = new AbortController();
  const late = Symbol('late');
  try {
    const outcome = await Promise.race([read(), timeUp(timer.signal).then(() => late)]);
    if (outcome === late) {
      logger.warn(
        `metrics: no answer reading ${what} within ${SCRAPE_READ_TIMEOUT_MS} ms; keeping the last values`,
      );
    }
  } catch (error) {
    logger.warn({ err: error }, `metrics: cannot read ${what}; keeping the last values`);
  } finally {
    timer.abort();
  }
}
