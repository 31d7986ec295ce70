import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../../src/db/pool.ts';
import { DEVICES_CATEGORY, devicesStream } from '../../src/events/devices.ts';
import type { EventStore } from '../../src/events/store/port.ts';
import { devicesProjection } from '../../src/projections/devices.ts';
import { rebuildProjection } from '../../src/projections/rebuild.ts';
import type { Teardown } from '../teardown.ts';
import { ROWS_PER_USER_HISTORY, toAppend, USER_HISTORY_LENGTH, userHistory } from './events.ts';
import { type DevicesRunner, startDevicesRunner } from './runner.ts';

export interface Seeded {
  readonly users: number;
  readonly events: number;
  readonly seconds: number;
  /** Rows the devices table must hold once every seeded event is applied. */
  readonly expectedRows: number;
}

/**
 * Fills the log fast: each user's whole history (USER_HISTORY_LENGTH events) in one append, `writers`
 * users at a time. At least `events` events.
 */
export async function seedDevices(
  store: EventStore,
  events: number,
  writers: number,
  signal: AbortSignal,
): Promise<Seeded> {
  const users = Math.ceil(events / USER_HISTORY_LENGTH);
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      for (let user = next++; user < users; user = next++) {
        signal.throwIfAborted();
        const userId = `u${user}`;
        const stream = devicesStream(userId);
        await store.append(stream, toAppend(userId, stream, userHistory(userId)), 'no_stream');
      }
    }),
  );
  return {
    users,
    events: users * USER_HISTORY_LENGTH,
    seconds: (performance.now() - start) / 1000,
    expectedRows: users * ROWS_PER_USER_HISTORY,
  };
}

/**
 * What autovacuum does to a log that has been there a while. Right after a bulk load the table has no
 * statistics, and PostgreSQL then plans the runner's read as a scan of the whole category plus a sort.
 */
export async function analyzeLog(pool: DatabasePool): Promise<void> {
  await pool.query(sql.unsafe`ANALYZE events`);
}

export const countDevices = (pool: DatabasePool): Promise<number> =>
  pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM devices`);

/** How PostgreSQL read the live `devices` table so far (pg_stat_user_tables, up to a second behind). */
export interface TableScans {
  readonly seqScans: number;
  readonly seqRowsRead: number;
  readonly indexScans: number;
  /** Whether it had been analysed (by autovacuum): without statistics the planner guesses. */
  readonly analyzed: boolean;
}

const tableScans = (pool: DatabasePool): Promise<TableScans> =>
  pool.one(sql.type(
    z.object({
      seqScans: z.coerce.number(),
      seqRowsRead: z.coerce.number(),
      indexScans: z.coerce.number(),
      analyzed: z.boolean(),
    }),
  )`
    SELECT t.seq_scan AS "seqScans", t.seq_tup_read AS "seqRowsRead", coalesce(t.idx_scan, 0) AS "indexScans",
      (t.last_analyze IS NOT NULL OR t.last_autoanalyze IS NOT NULL) AS analyzed
    FROM pg_stat_user_tables t JOIN projections p ON p.name = 'devices'
    WHERE t.relname = 'devices' AND t.schemaname = 'projection_devices_g' || p.active_generation`);

export interface CatchUp {
  readonly seconds: number;
  readonly eventsPerSecond: number;
  readonly batches: number;
  readonly rows: number;
  readonly scans: TableScans;
}

/** Starts the runner from an empty checkpoint and times it until its checkpoint reaches the head. */
export async function measureCatchUp(options: {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly connectionString: string;
  readonly logger: Logger;
  readonly batchSize: number | undefined;
  readonly events: number;
  readonly signal: AbortSignal;
  readonly teardown: Teardown;
}): Promise<{ catchUp: CatchUp; devices: DevicesRunner }> {
  const head = await options.store.headPosition([DEVICES_CATEGORY]);
  if (!head) throw new Error('nothing to catch up on');
  const start = performance.now();
  const devices = startDevicesRunner(options);
  options.teardown.add('projection runner', () => devices.runner.stop());
  const caughtUp = await devices.reach(head, 60_000, options.signal);
  const seconds = (caughtUp - start) / 1000;
  return {
    catchUp: {
      seconds,
      eventsPerSecond: options.events / seconds,
      batches: devices.timeline.length,
      rows: await countDevices(options.pool),
      scans: await tableScans(options.pool),
    },
    devices,
  };
}

export interface Rebuild {
  readonly applied: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  readonly rows: number;
}

/** `projections rebuild devices`: a new generation filled from position zero, then switched in. */
export async function measureRebuild(options: {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly connectionString: string;
}): Promise<Rebuild> {
  const start = performance.now();
  const { applied } = await rebuildProjection({ ...options, projection: devicesProjection });
  const seconds = (performance.now() - start) / 1000;
  return { applied, seconds, eventsPerSecond: applied / seconds, rows: await countDevices(options.pool) };
}
