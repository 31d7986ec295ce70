import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { type DatabasePool, sql } from 'slonik';
import { z } from 'zod';
import { secondsBehind } from '../events/store/lag.ts';
import type { EventStore } from '../events/store/port.ts';
import { readOrKeepLast } from '../lib/metrics.ts';
import { toPosition } from '../events/envelope.ts';
import type { Projection } from './projection.ts';

export interface ProjectionMetrics {
  readonly applied: Counter<'projection'>;
  unregister(): void;
}

const names = ['projection_events_applied_total', 'projection_lag_seconds', 'projection_failed'] as const;

/**
 * Throughput per process; lag and failure read from the database at scrape time, so every replica
 * reports the same whichever one runs the projection. prom-client collects gauges concurrently, so each
 * reads on its own.
 */
export function projectionMetrics(options: {
  readonly registry: Registry;
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly projections: readonly Projection[];
  readonly logger: Logger;
}): ProjectionMetrics {
  const { registry, pool, store, projections, logger } = options;
  const labelNames = ['projection'] as const;
  const applied = new Counter({
    name: 'projection_events_applied_total',
    help: 'Events applied to read tables by this process',
    labelNames,
    registers: [registry],
  });
  const liveCheckpoints = () =>
    pool.any(sql.type(
      z.object({
        name: z.string(),
        status: z.string(),
        commit_position: z.coerce.bigint().nullable(),
        prepare_position: z.coerce.bigint().nullable(),
      }),
    )`SELECT p.name, p.status, c.commit_position, c.prepare_position
      FROM projections p JOIN projection_checkpoints c ON c.name = p.name AND c.generation = p.active_generation
      WHERE p.name = ANY (${sql.array(
        projections.map((p) => p.name),
        'text',
      )})`);
  const lag = new Gauge({
    name: 'projection_lag_seconds',
    help: 'Age of the oldest event the projection has not applied yet (0 when caught up)',
    labelNames,
    registers: [registry],
    collect: () =>
      readOrKeepLast(logger, 'projection checkpoints', async () => {
        const rows = await liveCheckpoints();
        lag.reset();
        for (const projection of projections) {
          const row = rows.find((r) => r.name === projection.name);
          if (!row) continue;
          const seconds = await secondsBehind(store, toPosition(row), projection.categories);
          lag.set({ projection: projection.name }, seconds);
        }
      }),
  });
  const failed = new Gauge({
    name: 'projection_failed',
    help: '1 when the projection has stopped on an event it cannot apply',
    labelNames,
    registers: [registry],
    collect: () =>
      readOrKeepLast(logger, 'projection states', async () => {
        const rows = await liveCheckpoints();
        failed.reset();
        for (const row of rows) failed.set({ projection: row.name }, row.status === 'failed' ? 1 : 0);
      }),
  });
  return {
    applied,
    unregister: () => {
      for (const name of names) registry.removeSingleMetric(name);
    },
  };
}
