import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { sql } from 'slonik';
import { z } from 'zod';
import { describeError } from '../lib/error-text.ts';
import type { DatabasePool } from './pool.ts';

/** How often a process says it is alive, and how long after its last word it counts as gone. */
export const HEARTBEAT_MS = 5_000;
const GONE_AFTER_SECONDS = 15;
const PRUNE_AFTER = '1 hour';

export interface InstanceInfo {
  readonly name: string;
  readonly roles: readonly string[];
  readonly sharesState: boolean;
}

/** What the live processes of the service are, as this one last saw them. */
export interface Instances {
  /** Live processes, this one included (1 until the first beat has been read). */
  live(): number;
  /**
   * Why the processes cannot work as one, or null: several of them live while one keeps its limits,
   * lockouts, presence and invalidations in its own memory (no REDIS_URL).
   */
  split(): string | null;
  stop(): Promise<void>;
}

const liveRow = z.object({ name: z.string(), shares_state: z.boolean() });

export interface HeartbeatOptions {
  readonly pool: DatabasePool;
  readonly logger: Logger;
  readonly registry?: Registry;
  readonly self: InstanceInfo;
  /**
   * This process's id, which the `application_name` of one connection it keeps open for its whole life
   * carries (`instanceConnectionName`): a process killed without a word leaves its row behind, but its
   * connection goes with it.
   */
  readonly id: string;
  readonly intervalMs?: number;
}

/** The `application_name` of the connection that shows an instance alive (63 characters at most). */
export const instanceConnectionName = (id: string): string => `support-channel-service:${id}`;

/**
 * This process's heartbeat in `service_instances`, and what it reads back: one upsert and one read every
 * `HEARTBEAT_MS`. An instance is live while it beats and its named connection is open. A database that
 * does not answer leaves the last reading in place.
 */
export function startHeartbeat(options: HeartbeatOptions): Instances {
  const { pool, logger, self, id } = options;
  let live: readonly z.infer<typeof liveRow>[] = [{ name: self.name, shares_state: self.sharesState }];
  const split = (): string | null => {
    if (live.length < 2) return null;
    const alone = live.filter((instance) => !instance.shares_state).map((instance) => instance.name);
    if (alone.length === 0) return null;
    return `${live.length} processes are live, and ${alone.join(', ')} ${alone.length === 1 ? 'has' : 'have'} no REDIS_URL: limits, lockouts, presence and cache invalidations would split between them`;
  };
  if (options.registry !== undefined) {
    const registers = [options.registry];
    new Gauge({
      name: 'service_instances_live',
      help: 'Processes of the service seen alive through their heartbeat, this one included',
      registers,
      collect() {
        this.set(live.length);
      },
    });
    new Gauge({
      name: 'service_state_split',
      help: '1 while several processes are live and one of them keeps its shared state in memory (no REDIS_URL)',
      registers,
      collect() {
        this.set(split() === null ? 0 : 1);
      },
    });
  }
  const beat = async () => {
    try {
      await pool.query(sql.unsafe`
        INSERT INTO service_instances (id, name, roles, shares_state)
        VALUES (${id}, ${self.name}, ${sql.array([...self.roles], 'text')}, ${self.sharesState})
        ON CONFLICT (id) DO UPDATE SET seen_at = now()`);
      live = await pool.any(sql.type(liveRow)`
        WITH pruned AS (
          DELETE FROM service_instances WHERE seen_at < now() - ${PRUNE_AFTER}::interval
        )
        SELECT i.name, i.shares_state FROM service_instances i
        WHERE i.seen_at > now() - make_interval(secs => ${GONE_AFTER_SECONDS})
          AND (i.id = ${id} OR EXISTS (
            SELECT 1 FROM pg_stat_activity a
            WHERE a.application_name = 'support-channel-service:' || i.id))
        ORDER BY i.started_at`);
    } catch (error) {
      logger.warn({ reason: describeError(error) }, 'heartbeat: the database did not answer');
    }
  };
  let beating = beat();
  const timer = setInterval(() => {
    beating = beat();
  }, options.intervalMs ?? HEARTBEAT_MS);
  timer.unref();
  return {
    live: () => live.length,
    split,
    async stop() {
      clearInterval(timer);
      await beating;
      await pool.query(sql.unsafe`DELETE FROM service_instances WHERE id = ${id}`).catch(() => undefined);
    },
  };
}
