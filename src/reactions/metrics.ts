import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { type DatabasePool, sql } from 'slonik';
import { z } from 'zod';
import type { EventStore } from '../events/store/port.ts';
import { toPosition } from '../projections/checkpoints.ts';
import { secondsBehind } from '../events/store/lag.ts';
import { readOrKeepLast } from '../metrics.ts';
import { countDeadLetters } from './checkpoints.ts';
import type { Reaction } from './reaction.ts';

export interface ReactionMetrics {
  readonly handled: Counter<'reaction'>;
  readonly failures: Counter<'reaction'>;
  unregister(): void;
}

const names = [
  'reaction_events_handled_total',
  'reaction_attempt_failures_total',
  'reaction_dead_letters',
  'reaction_lag_seconds',
] as const;

/**
 * The counters count what this process did (sum them across replicas). Dead letters and lag are read
 * from the database at scrape time instead: every replica then reports the same numbers whichever one
 * leads, they survive restarts and leader changes, and the dead-letter gauge drops when an operator
 * deals with the rows, which a per-process counter could not show.
 */
export function reactionMetrics(options: {
  readonly registry: Registry;
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly reactions: readonly Reaction[];
  readonly logger: Logger;
}): ReactionMetrics {
  const { registry, pool, store, reactions, logger } = options;
  const labelNames = ['reaction'] as const;
  const handled = new Counter({
    name: 'reaction_events_handled_total',
    help: 'Events whose side effect succeeded in this process',
    labelNames,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'reaction_attempt_failures_total',
    help: 'Failed attempts at a side effect in this process (each retry counts)',
    labelNames,
    registers: [registry],
  });
  const deadLetters = new Gauge({
    name: 'reaction_dead_letters',
    help: 'Events a reaction gave up on after its last attempt (rows in reaction_dead_letters)',
    labelNames,
    registers: [registry],
    collect: () =>
      readOrKeepLast(logger, 'dead letters', async () => {
        const counts = await countDeadLetters(pool);
        for (const r of reactions) deadLetters.set({ reaction: r.name }, counts.get(r.name) ?? 0);
      }),
  });
  const lag = new Gauge({
    name: 'reaction_lag_seconds',
    help: 'Age of the oldest event the reaction has not passed yet (0 when caught up)',
    labelNames,
    registers: [registry],
    collect: () =>
      readOrKeepLast(logger, 'reaction checkpoints', async () => {
        const rows = await pool.any(sql.type(
          z.object({
            name: z.string(),
            commit_position: z.coerce.bigint().nullable(),
            prepare_position: z.coerce.bigint().nullable(),
          }),
        )`SELECT name, commit_position, prepare_position FROM reaction_checkpoints
          WHERE name = ANY (${sql.array(
            reactions.map((r) => r.name),
            'text',
          )})`);
        for (const reaction of reactions) {
          const row = rows.find((r) => r.name === reaction.name);
          if (!row) continue;
          lag.set(
            { reaction: reaction.name },
            await secondsBehind(store, toPosition(row), reaction.categories),
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
