import type { Logger } from 'pino';

/**
 * Runs a gauge's scrape-time read. When the database is away the gauge keeps its last values and a
 * warning says why, rather than failing the whole /metrics answer.
 */
export async function readOrKeepLast(logger: Logger, what: string, read: () => Promise<void>): Promise<void> {
  try {
    await read();
  } catch (error) {
    logger.warn({ err: error }, `metrics: cannot read ${what}; keeping the last values`);
  }
}
