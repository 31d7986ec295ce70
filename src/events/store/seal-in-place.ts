import pg from 'pg';
import type { Json } from '../envelope.ts';
import { mapPath, personalData, type PersonalFields } from '../personal-data.ts';
import { privacyStream } from '../privacy.ts';
import type { DataKeys } from './data-keys.ts';
import { isSealed, sealEvent } from './sealing.ts';

export interface SealProgress {
  /** Events of the types with personal fields: looked at so far, and in the log when the run began. */
  readonly scanned: number;
  readonly total: number;
  /** Events whose plain fields this run sealed. */
  readonly sealed: number;
  /** Events with nothing in the clear: sealed already, or without a value. */
  readonly alreadySealed: number;
  /** Events of users erased since they were written: their plain fields became null, as sealed ones read. */
  readonly erased: number;
}

export interface SealResult extends SealProgress {
  /** False when the signal stopped the run before the end of the log. */
  readonly complete: boolean;
}

export interface SealStoredEventsOptions {
  /** The PostgreSQL event store's database (also where `data_keys` and `user_erasures` are). */
  readonly connectionString: string;
  readonly keys: Pick<DataKeys, 'keyOf' | 'forget'>;
  readonly batchSize?: number;
  readonly onProgress?: (progress: SealProgress) => void;
  /** Stops the run after the batch under way; a later run carries on (what is sealed stays sealed). */
  readonly signal?: AbortSignal;
}

/** A stored event as the sealing reads it (a row of `events`). */
export interface SealRow {
  readonly global_position: string;
  readonly event_id: string;
  readonly stream_name: string;
  readonly event_type: string;
  readonly data: Json;
}

interface Row extends SealRow {
  readonly transaction_text: string;
}

const TYPES = Object.keys(personalData);

const TOTAL = 'SELECT count(*)::text AS n FROM events WHERE event_type = ANY($1::text[])';
const BATCH = `SELECT global_position, transaction_id::text AS transaction_text, event_id, stream_name,
  event_type, data FROM events
  WHERE event_type = ANY($1::text[]) AND (transaction_id, global_position) > ($2::text::xid8, $3::bigint)
  ORDER BY transaction_id, global_position LIMIT $4`;
// An erasure asked for after the event was written, or its userErased event later in the log.
const ERASED = `SELECT x.position::text AS position
  FROM unnest($1::bigint[], $2::text[], $3::text[]) AS x (position, subject, privacy)
  JOIN events e ON e.global_position = x.position
  WHERE EXISTS (SELECT 1 FROM user_erasures u WHERE u.user_id = x.subject AND u.requested_at > e.recorded_at)
     OR EXISTS (SELECT 1 FROM events z WHERE z.stream_name = x.privacy AND z.event_type = 'userErased'
                AND (z.transaction_id, z.global_position) > (e.transaction_id, e.global_position))`;
const LOCK_KEYS = 'SELECT key_id FROM data_keys WHERE key_id = ANY($1::uuid[]) FOR SHARE';
// Only `data`: the id, stream, revision, position, transaction and metadata stay as appended, and no
// NOTIFY goes out, so subscriptions never see the event again.
const UPDATE = `UPDATE events e SET data = x.data FROM unnest($1::bigint[], $2::jsonb[]) AS x (position, data)
  WHERE e.global_position = x.position`;

/** How often a batch is sealed anew after one of its keys was erased under it, before giving up. */
const ATTEMPTS = 3;

const isPlain = (value: Json): boolean => value !== null && !isSealed(value);

function fieldsOf(row: SealRow): PersonalFields {
  const fields = personalData[row.event_type];
  if (!fields) throw new Error(`event ${row.event_id}: ${row.event_type} has no personal fields`);
  return fields;
}

/** Whether a personal field of the event still holds its value in the clear. */
export function hasPlain(row: SealRow): boolean {
  let found = false;
  for (const path of fieldsOf(row).paths)
    mapPath(row.data, path, (value) => {
      if (isPlain(value)) found = true;
      return value;
    });
  return found;
}

/** What a sealed field of an erased user reads as. */
function withoutPlain(row: SealRow): Json {
  let data = row.data;
  for (const path of fieldsOf(row).paths) data = mapPath(data, path, (v) => (isPlain(v) ? null : v));
  return data;
}

function subjectOf(row: SealRow): string {
  try {
    return fieldsOf(row).subject(row.data, row.stream_name);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`event ${row.event_id} (${row.event_type}): ${reason}`, { cause: error });
  }
}

async function erasedAmong(db: pg.Pool | pg.PoolClient, rows: readonly SealRow[]): Promise<Set<string>> {
  const subjects = rows.map(subjectOf);
  const { rows: found } = await db.query<{ position: string }>(ERASED, [
    rows.map((r) => r.global_position),
    subjects,
    subjects.map(privacyStream),
  ]);
  return new Set(found.map((r) => r.position));
}

/**
 * Seals the plain fields of `plain` (rows of events whose personal fields hold something in the clear)
 * and hands their new data, by global position, to `write`, inside a transaction that holds their data
 * keys: an erasure that deletes one of these keys waits for it, then erases what was sealed with it; one
 * that deleted it before is seen, and the batch is sealed anew. A user erased since the event was written
 * gets null in its fields, as a field sealed with the erased key reads, never a new key that would bring
 * them back. `events seal` writes the data back in place; `events copy` appends it to another store.
 */
export async function sealRows(
  pool: pg.Pool,
  keys: Pick<DataKeys, 'keyOf' | 'forget'>,
  plain: readonly SealRow[],
  write: (client: pg.PoolClient, data: ReadonlyMap<string, Json>) => Promise<void>,
): Promise<{ readonly sealed: number; readonly erased: number }> {
  for (let attempt = 1; ; attempt++) {
    // Looked at first too, so no key is made for a user erased long ago.
    const erasedBefore = await erasedAmong(pool, plain);
    const used = new Set<string>();
    const recording = {
      keyOf: async (userId: string) => {
        const key = await keys.keyOf(userId);
        used.add(key.id);
        return key;
      },
    };
    const next = new Map<string, Json>();
    for (const row of plain) {
      const { event_id: id, event_type: type, data } = row;
      next.set(
        row.global_position,
        erasedBefore.has(row.global_position)
          ? withoutPlain(row)
          : await sealEvent(recording, row.stream_name, { id, type, data }),
      );
    }
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      // Held until the commit (see above).
      const { rows: locked } = await client.query<{ key_id: string }>(LOCK_KEYS, [[...used]]);
      const lost = [...used].filter((id) => !locked.some((r) => r.key_id === id));
      if (lost.length > 0) {
        await client.query('ROLLBACK');
        for (const id of lost) keys.forget(id);
        if (attempt >= ATTEMPTS) throw new Error('data keys keep being erased under the batch; run it again');
        continue;
      }
      // Read after the lock. An erasure is asked for (user_erasures) before its key is deleted: asked for
      // before this read, it is seen here; later, its deletion waits for the commit and takes this batch.
      const erased = await erasedAmong(client, plain);
      for (const row of plain)
        if (erased.has(row.global_position)) next.set(row.global_position, withoutPlain(row));
      await write(client, next);
      await client.query('COMMIT');
      return { sealed: plain.length - erased.size, erased: erased.size };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}

/**
 * Seals in place the personal fields that events appended before sealing began hold in the clear (decision
 * 048: their encoding changes once; their meaning does not). Walks the PostgreSQL event store in its global
 * order, seals each plain field with `sealEvent` as an append would (same event id and path, so the same
 * associated data), and rewrites only the row's data. Fields already sealed are left as they are, so a run
 * stopped halfway is simply run again. A user erased since the event was written gets null in its fields,
 * as a field sealed with the erased key reads, never a new key that would bring them back.
 */
export async function sealStoredEvents(options: SealStoredEventsOptions): Promise<SealResult> {
  const { keys } = options;
  const batchSize = options.batchSize ?? 500;
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 2 });
  const counts = { scanned: 0, total: 0, sealed: 0, alreadySealed: 0, erased: 0 };

  try {
    const { rows: total } = await pool.query<{ n: string }>(TOTAL, [TYPES]);
    counts.total = Number(total[0]?.n ?? 0);
    let after = { transaction: '0', position: '0' };
    for (;;) {
      if (options.signal?.aborted) return { ...counts, complete: false };
      const { rows } = await pool.query<Row>(BATCH, [TYPES, after.transaction, after.position, batchSize]);
      const last = rows.at(-1);
      if (!last) return { ...counts, complete: true };
      const plain = rows.filter(hasPlain);
      if (plain.length > 0) {
        const done = await sealRows(pool, keys, plain, async (client, next) => {
          await client.query(UPDATE, [
            [...next.keys()],
            [...next.values()].map((data) => JSON.stringify(data)),
          ]);
        });
        counts.erased += done.erased;
        counts.sealed += done.sealed;
      }
      counts.alreadySealed += rows.length - plain.length;
      counts.scanned += rows.length;
      after = { transaction: last.transaction_text, position: last.global_position };
      options.onProgress?.({ ...counts });
    }
  } finally {
    await pool.end();
  }
}
