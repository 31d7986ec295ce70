import pg from 'pg';
import type { EventToAppend, Json } from '../envelope.ts';
import { personalData } from '../personal-data.ts';
import { compareLogs, sourceBatches, type Comparison, type SourceRow } from './copy-compare.ts';
import type { DataKeys } from './data-keys.ts';
import { type EventStore, type ExpectedRevision, WrongExpectedRevisionError } from './port.ts';
import { hasPlain, sealRows } from './seal-in-place.ts';

export type { Comparison, LogDigest } from './copy-compare.ts';

export interface CopyProgress {
  /** Events in the source log when the run began. */
  readonly total: number;
  /** Events the target held already (an earlier run's), checked against the source. */
  readonly found: number;
  /** Events this run appended. */
  readonly copied: number;
  /** Of those, events whose plain personal fields were sealed on the way. */
  readonly sealed: number;
  /** Of those, events of users erased since they were written: their plain fields went as null. */
  readonly erased: number;
}

export interface CopyResult extends CopyProgress {
  /** False when the signal stopped the run before the end of the log. */
  readonly complete: boolean;
}

export interface CopyEventLogOptions {
  /** The PostgreSQL event store's database (also where `data_keys` and `user_erasures` are). */
  readonly connectionString: string;
  /** The store to copy into, without upcasting nor sealing: it gets the events as stored. */
  readonly target: EventStore;
  readonly keys: Pick<DataKeys, 'keyOf' | 'forget'>;
  readonly batchSize?: number;
  readonly onProgress?: (progress: CopyProgress) => void;
  /** Stops the run before its next append; a later run carries on from what the target holds. */
  readonly signal?: AbortSignal;
}

const COUNT = 'SELECT count(*)::text AS n FROM events';

const expectedBefore = (row: SourceRow): ExpectedRevision => {
  const revision = BigInt(row.stream_revision);
  return revision === 0n ? 'no_stream' : revision - 1n;
};

/**
 * Runs of consecutive events that one transaction wrote to one stream: each was atomic at the source, so
 * it goes in one append. Cutting the log at these places only keeps its global order.
 */
function appendsOf(rows: readonly SourceRow[]): SourceRow[][] {
  const groups: SourceRow[][] = [];
  let current: SourceRow[] = [];
  for (const row of rows) {
    const first = current[0];
    if (first && (first.transaction_text !== row.transaction_text || first.stream_name !== row.stream_name)) {
      groups.push(current);
      current = [];
    }
    current.push(row);
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

const notACopy = (why: string) =>
  new Error(
    `the target KurrentDB is not a copy of this event log (${why}): it holds another log, or something ` +
      'else wrote to it. Copy into an empty KurrentDB, or one an earlier `events copy` of this log filled',
  );

/**
 * Copies the PostgreSQL event log into `target` (decision 050): every event as stored (id, stream,
 * revision, type, schema version, data and metadata), in the source's global order, each append with the
 * revision its stream must be at. Personal fields still in the clear are sealed on the way, as
 * `events seal` would seal them in place (events in KurrentDB cannot be rewritten later). A stopped or
 * failed run is run again: it first checks, event by event, that the target holds the start of this
 * log, and carries on after its last event.
 */
export async function copyEventLog(options: CopyEventLogOptions): Promise<CopyResult> {
  const { target, keys, signal } = options;
  const batchSize = options.batchSize ?? 500;
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 2 });
  const counts = { total: 0, found: 0, copied: 0, sealed: 0, erased: 0 };

  async function append(groups: readonly SourceRow[][], sealed: ReadonlyMap<string, Json>): Promise<boolean> {
    for (const group of groups) {
      if (signal?.aborted) return false;
      const [first] = group;
      const last = group.at(-1);
      if (!first || !last) continue;
      const events: EventToAppend[] = group.map((row) => ({
        id: row.event_id,
        type: row.event_type,
        data: sealed.get(row.global_position) ?? row.data,
        metadata: row.metadata,
      }));
      try {
        const result = await target.append(first.stream_name, events, expectedBefore(first));
        if (result.nextRevision !== BigInt(last.stream_revision)) {
          throw new Error(
            `event ${last.event_id} went to revision ${result.nextRevision.toString()} of its stream in ` +
              `the target, not ${last.stream_revision} as in the source`,
          );
        }
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        throw notACopy(
          `before event ${first.event_id} its stream stands at revision ${String(error.actual)} ` +
            `in the target, not ${String(error.expected)}`,
        );
      }
      counts.copied += group.length;
    }
    return true;
  }

  try {
    const { rows } = await pool.query<{ n: string }>(COUNT);
    counts.total = Number(rows[0]?.n ?? 0);
    const start = await compareLogs({ pool, target, batchSize, extent: 'prefix' });
    if (start.difference !== null) throw notACopy(start.difference);
    counts.found = start.target.count;
    options.onProgress?.({ ...counts });
    for await (const batch of sourceBatches(pool, start.after, batchSize)) {
      const groups = appendsOf(batch);
      const plain = batch.filter((row) => Object.hasOwn(personalData, row.event_type) && hasPlain(row));
      let whole: boolean;
      if (plain.length === 0) whole = await append(groups, new Map());
      else {
        // The batch is appended while its data keys are held: an erasure meanwhile waits, then shreds.
        let appended = false;
        const done = await sealRows(pool, keys, plain, async (_client, sealed) => {
          appended = await append(groups, sealed);
        });
        whole = appended;
        counts.sealed += done.sealed;
        counts.erased += done.erased;
      }
      options.onProgress?.({ ...counts });
      if (!whole || signal?.aborted) return { ...counts, complete: false };
    }
    return { ...counts, complete: true };
  } finally {
    await pool.end();
  }
}

/** Both logs read side by side to their ends: counts, digests and the first difference. */
export async function verifyCopy(options: {
  readonly connectionString: string;
  readonly target: EventStore;
  readonly batchSize?: number;
  readonly onEvent?: () => void;
}): Promise<Comparison> {
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 2 });
  try {
    return await compareLogs({
      pool,
      target: options.target,
      batchSize: options.batchSize ?? 500,
      extent: 'whole',
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    });
  } finally {
    await pool.end();
  }
}
