import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { countPendingNotifications } from './processed-events.ts';
import type { DatabasePool } from '../db/pool.ts';
import { readOrKeepLast } from '../lib/metrics.ts';

const NAME = 'support_webhooks_pending';

/**
 * The webhook inbox's depth, read at scrape time (so every replica reports the same): a number that keeps
 * growing means the workers are failing or cannot keep up, and operator replies are not being pushed.
 */
export function supportMetrics(
  registry: Registry,
  pool: DatabasePool,
  logger: Logger,
): { unregister(): void } {
  const pending = new Gauge({
    name: NAME,
    help: 'Verified support webhooks stored and not processed yet (failed-for-good ones excluded)',
    registers: [registry],
    collect: () =>
      readOrKeepLast(logger, 'the support webhook inbox', async () => {
        pending.set(await countPendingNotifications(pool));
      }),
  });
  return {
    unregister: () => {
      registry.removeSingleMetric(NAME);
    },
  };
}
