import { createHash, type Hash } from 'node:crypto';
import type pg from 'pg';
import type { EventMetadata, Json, RecordedEvent } from '../envelope.ts';
import { mapPath, personalData, valuesAt, type PersonalFields } from '../personal-data.ts';
import type { EventStore } from './port.ts';
import { isSealed } from './sealing.ts';

/** A row of the PostgreSQL `events` table, as stored (not upcast, not opened). */
export interface SourceRow {
  readonly global_position: string;
  readonly transaction_text: string;
  readonly event_id: string;
  readonly stream_name: string;
  readonly stream_revision: string;
  readonly event_type: string;
  readonly data: Json;
  readonly metadata: EventMetadata;
}

/** Where the copy stands in the source: after this transaction and global position. */
export interface SourceCursor {
  readonly transaction: string;
  readonly position: string;
}

const START: SourceCursor = { transaction: '0', position: '0' };

// The store's global order, and only what no running transaction can still precede (as its readAll).
// ORDER BY names the table's columns: bare, it would sort by the output columns, which are text.
const READ = `SELECT e.global_position::text AS global_position, e.transaction_id::text AS transaction_text,
  e.event_id::text AS event_id, e.stream_name, e.stream_revision::text AS stream_revision, e.event_type,
  e.data, e.metadata FROM events e
  WHERE (e.transaction_id, e.global_position) > ($1::text::xid8, $2::bigint)
    AND e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  ORDER BY e.transaction_id, e.global_position LIMIT $3`;

/** Batches of the source log after `after`, in its global order. */
export async function* sourceBatches(
  pool: pg.Pool,
  after: SourceCursor | null,
  batchSize: number,
): AsyncGenerator<readonly SourceRow[]> {
  let cursor = after ?? START;
  for (;;) {
    const { rows } = await pool.query<SourceRow>(READ, [cursor.transaction, cursor.position, batchSize]);
    const last = rows.at(-1);
    if (!last) return;
    yield rows;
    cursor = cursorOf(last);
  }
}

export const cursorOf = (row: SourceRow): SourceCursor => ({
  transaction: row.transaction_text,
  position: row.global_position,
});

async function* targetEvents(target: EventStore, batchSize: number): AsyncGenerator<RecordedEvent> {
  let after = null;
  for (;;) {
    const page = await target.readAll({ after, maxCount: batchSize });
    yield* page;
    const last = page.at(-1);
    if (!last || page.length < batchSize) return;
    after = last.position;
  }
}

async function* sourceEvents(pool: pg.Pool, batchSize: number): AsyncGenerator<SourceRow> {
  for await (const batch of sourceBatches(pool, null, batchSize)) yield* batch;
}

const fieldsOf = (type: string): PersonalFields | undefined =>
  Object.hasOwn(personalData, type) ? personalData[type] : undefined;

/** JSON with its keys sorted, so that both stores' spellings of the same value hash alike. */
function canonical(value: Json | undefined): string {
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The data without its personal fields: the copy seals those that were plain, with a new random box each
 * time, so they are compared field by field instead (`personalAgrees`).
 */
function withoutPersonal(type: string, data: Json): Json {
  const fields = fieldsOf(type);
  if (!fields) return data;
  let masked = data;
  for (const path of fields.paths) masked = mapPath(masked, path, () => 'personal');
  return masked;
}

interface Comparable {
  readonly id: string;
  readonly stream: string;
  readonly revision: bigint;
  readonly type: string;
  readonly data: Json;
  readonly metadata: Json;
}

const fromSource = (row: SourceRow): Comparable => ({
  id: row.event_id.toLowerCase(),
  stream: row.stream_name,
  revision: BigInt(row.stream_revision),
  type: row.event_type,
  data: row.data,
  metadata: row.metadata,
});

const fromTarget = (event: RecordedEvent): Comparable => ({
  id: event.id.toLowerCase(),
  stream: event.streamName,
  revision: event.streamRevision,
  type: event.type,
  data: event.data,
  metadata: event.metadata,
});

/** What the digest takes of an event: id, stream, revision, type, data (personal fields left out), metadata. */
const digestLine = (e: Comparable): string =>
  `${JSON.stringify([e.id, e.stream, e.revision.toString(), e.type, canonical(withoutPersonal(e.type, e.data)), canonical(e.metadata)])}\n`;

/**
 * A personal field copied as it should be: null stays null, a sealed box is the same box, and a plain
 * value became a sealed box (or null, for a user erased since).
 */
function personalAgrees(type: string, source: Json, target: Json): boolean {
  const fields = fieldsOf(type);
  if (!fields) return true;
  const was = valuesAt(source, fields);
  const now = valuesAt(target, fields);
  if (was.length !== now.length) return false;
  return was.every((value, i) => {
    const copied = now[i] ?? null;
    if (value === null) return copied === null;
    if (isSealed(value)) return canonical(value) === canonical(copied);
    return copied === null || isSealed(copied);
  });
}

/** Which part of an event differs; never its content (event data is not printed). */
function difference(source: Comparable, target: Comparable): string | null {
  if (source.id !== target.id) return 'its event id';
  if (source.stream !== target.stream) return 'its stream';
  if (source.revision !== target.revision) return 'its stream revision';
  if (source.type !== target.type) return 'its type';
  if (canonical(source.metadata) !== canonical(target.metadata)) return 'its metadata';
  if (digestLine(source) !== digestLine(target)) return 'its data';
  if (!personalAgrees(source.type, source.data, target.data)) return 'a personal field';
  return null;
}

export interface LogDigest {
  readonly count: number;
  /** sha256, hex, over each event's id, stream, revision, type, data and metadata in global order. */
  readonly sha256: string;
}

export interface Comparison {
  readonly source: LogDigest;
  readonly target: LogDigest;
  /** The first place where the logs differ, in words (no event data); null when they agree. */
  readonly difference: string | null;
  /** Where the source stands after the target's last event (null: the target is empty). */
  readonly after: SourceCursor | null;
}

export interface CompareOptions {
  readonly pool: pg.Pool;
  readonly target: EventStore;
  readonly batchSize: number;
  /**
   * `prefix`: only as far as the target goes (the target must be the start of the source); `whole`: both
   * logs to their ends.
   */
  readonly extent: 'prefix' | 'whole';
  readonly onEvent?: () => void;
}

/** Reads both logs side by side from their starts, hashing each and comparing them event by event. */
export async function compareLogs(options: CompareOptions): Promise<Comparison> {
  const { extent } = options;
  const sources = sourceEvents(options.pool, options.batchSize);
  const targets = targetEvents(options.target, options.batchSize);
  const hashes: { source: Hash; target: Hash } = {
    source: createHash('sha256'),
    target: createHash('sha256'),
  };
  const counts = { source: 0, target: 0 };
  let found: string | null = null;
  let after: SourceCursor | null = null;
  try {
    for (;;) {
      const target = await targets.next();
      if (target.done && extent === 'prefix') break;
      const source = await sources.next();
      if (source.done && target.done) break;
      if (!source.done) {
        counts.source += 1;
        hashes.source.update(digestLine(fromSource(source.value)));
      }
      if (!target.done) {
        counts.target += 1;
        hashes.target.update(digestLine(fromTarget(target.value)));
      }
      options.onEvent?.();
      if (found !== null) continue;
      const place = `event ${(Math.max(counts.source, counts.target) - 1).toString()} of the log`;
      if (source.done) found = `${place}: the target holds more events than the source`;
      else if (target.done) found = `${place}: the target ends before the source`;
      else {
        const differs = difference(fromSource(source.value), fromTarget(target.value));
        if (differs !== null) found = `${place} (source event ${source.value.event_id}): ${differs} differs`;
        else after = cursorOf(source.value);
      }
      if (found !== null && extent === 'prefix') break;
    }
  } finally {
    await sources.return(undefined);
    await targets.return(undefined);
  }
  return {
    source: { count: counts.source, sha256: hashes.source.digest('hex') },
    target: { count: counts.target, sha256: hashes.target.digest('hex') },
    difference: found,
    after,
  };
}
