import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { type DatabasePool, sql } from 'slonik';
import { z } from 'zod';
import type { EventStore } from '../events/store/port.ts';
import { positionColumns, toPosition } from '../events/envelope.ts';
import { secondsBehind } from '../events/store/lag.ts';
import { readOrKeepLast } from '../lib/metrics.ts';
import { countDeadLetters } from './checkpoints.ts';
import type { Processor } from './processor.ts';

export interface ProcessorMetrics {
  readonly handled: Counter<'processor'>;
  readonly failures: Counter<'processor'>;
  unregister(): void;
}

const names = [
  'processor_events_handled_total',
  'processor_attempt_failures_total',
  'processor_dead_letters',
  'processor_lag_seconds',
] as const;

/**
 * The counters count what this process did (sum them across replicas). Dead letters and lag are read
 * from the database at scrape time instead: every replica then reports the same numbers whichever one
 * leads, they survive restarts and leader changes, and the dead-letter gauge drops when an operator
 * deals with the rows, which a per-process counter could not show.
 */
export function processorMetrics(options: {
  readonly registry: Registry;
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly processors: readonly Processor[];
  readonly logger: Logger;
}): ProcessorMetrics {
  const { registry, pool, store, processors, logger } = options;
  const labelNames = ['processor'] as const;
  const handled = new Counter({
    name: 'processor_events_handled_total',
    help: 'Events whose side effect succeeded in this process',
    labelNames,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'processor_attempt_failures_total',
    help: 'Failed attempts at a side effect in this process (each retry counts)',
    labelNames,
    registers: [registry],
  });
  const deadLetters = new Gauge({
    name: 'processor_dead_letters',
    help: 'Events a processor gave up on after its last attempt (rows in processor_dead_letters)',
    labelNames,
    registers: [registry],
    collect: () =>
      readOrKeepLast(logger, 'dead letters', async () => {
        const counts = await countDeadLetters(pool);
        for (const r of processors) deadLetters.set({ processor: r.name }, counts.get(r.name) ?? 0);
      }),
  });
  const lag = new Gauge({
    name: 'processor_lag_seconds',
    help: 'Age of the oldest event the processor has not passed yet (0 when caught up)',
    labelNames,
    registers: [registry],
    collect: () =>
      readOrKeepLast(logger, 'processor checkpoints', async () => {
        const rows = await pool.any(sql.type(
          positionColumns.extend({ name: z.string() }),
        )`SELECT name, commit_position, prepare_position FROM processor_checkpoints
          WHERE name = ANY (${sql.array(
            processors.map((r) => r.name),
            'text',
          )})`);
        for (const processor of processors) {
          const row = rows.find((r) => r.name === processor.name);
          if (!row) continue;
          lag.set(
            { processor: processor.name },
            await secondsBehind(store, toPosition(row), processor.categories),
          );
        }
      }),
  });
  return {
    handled,
    failures,
    unregister: () => {
      for (const name of names) registry.removeSingleMetric(name);
    },
  };
}
