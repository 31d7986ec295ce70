import pg from 'pg';
import type { Logger } from 'pino';
import { isAborted } from '../../abortable.ts';
import type { EventMetadata, EventToAppend, Json, RecordedEvent } from '../envelope.ts';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  SubscribeOptions,
} from './port.ts';
import { WrongExpectedRevisionError } from './port.ts';
import { type Upcast, noUpcast } from './upcasting.ts';

export interface PostgresEventStoreOptions {
  readonly connectionString: string;
  readonly logger: Logger;
  readonly upcast?: Upcast;
  readonly poolSize?: number;
  /** The fallback poll of live subscriptions, should a notification be lost. */
  readonly pollIntervalMs?: number;
}

const NOTIFY_CHANNEL = 'event_store';
const DEFAULT_BATCH = 500;

interface EventRow {
  global_position: string;
  transaction_text: string;
  event_id: string;
  stream_name: string;
  stream_revision: string;
  event_type: string;
  data: Json;
  metadata: EventMetadata;
  recorded_at: Date;
}

// The text of the transaction id gets a name of its own: an output column named `transaction_id` would
// be what ORDER BY transaction_id sorts by, as text, putting '10000' before '9998'.
const COLUMNS = `global_position, transaction_id::text AS transaction_text, event_id, stream_name,
  stream_revision, event_type, data, metadata, recorded_at`;

// Only what no running transaction can still precede: a transaction that began earlier (a lower id)
// may commit after a reader has passed the later ones, and its event would be skipped for good.
const VISIBLE = 'transaction_id < pg_snapshot_xmin(pg_current_snapshot())';

const expectedArg = (expected: ExpectedRevision): string =>
  expected === 'no_stream' ? '-1' : expected === 'any' ? '-2' : expected.toString();

const isUniqueEventIdViolation = (error: unknown): boolean =>
  error instanceof pg.DatabaseError && error.code === '23505' && error.constraint === 'events_event_id_key';

/** The adapter over the schema of migration 1763800000000_event-store.sql (decision 007). */
export function createPostgresEventStore(options: PostgresEventStoreOptions): EventStore {
  const { logger } = options;
  const upcast = options.upcast ?? noUpcast;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.poolSize ?? 10 });
  pool.on('error', (error) => {
    logger.warn({ err: error }, 'event store: idle connection lost');
  });
  const wake = createWakeups(options.connectionString, logger);

  const toRecorded = (row: EventRow): RecordedEvent =>
    upcast({
      id: row.event_id,
      type: row.event_type,
      data: row.data,
      metadata: row.metadata,
      streamName: row.stream_name,
      streamRevision: BigInt(row.stream_revision),
      position: { commit: BigInt(row.transaction_text), prepare: BigInt(row.global_position) },
      recordedAt: row.recorded_at,
    });

  async function appendOnce(
    stream: string,
    events: readonly EventToAppend[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    const result = await pool.query<{
      outcome: 'written' | 'duplicate' | 'conflict';
      revision: string;
      transaction_id: string | null;
      global_position: string | null;
    }>({
      name: 'append_to_stream',
      text: `SELECT outcome, revision, transaction_id::text AS transaction_id, global_position
             FROM append_to_stream($1, $2, $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[])`,
      values: [
        stream,
        expectedArg(expected),
        events.map((e) => e.id),
        events.map((e) => e.type),
        events.map((e) => JSON.stringify(e.data)),
        events.map((e) => JSON.stringify(e.metadata)),
      ],
    });
    const row = result.rows[0];
    if (!row) throw new Error('append_to_stream answered nothing');
    const revision = BigInt(row.revision);
    if (row.outcome === 'conflict') {
      throw new WrongExpectedRevisionError(stream, expected, revision < 0n ? 'no_stream' : revision);
    }
    return {
      nextRevision: revision,
      position: { commit: BigInt(row.transaction_id ?? '0'), prepare: BigInt(row.global_position ?? '0') },
      written: row.outcome === 'written',
    };
  }

  async function readAll({ after, categories, maxCount }: ReadAllOptions): Promise<RecordedEvent[]> {
    const filtered = categories !== undefined && categories.length > 0;
    const { rows } = await pool.query<EventRow>({
      name: filtered ? 'read_all_categories' : 'read_all',
      text: `SELECT ${COLUMNS} FROM events
             WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint) AND ${VISIBLE}
             ${filtered ? 'AND stream_category = ANY ($4::text[])' : ''}
             ORDER BY transaction_id, global_position LIMIT $3`,
      values: [
        (after?.commit ?? 0n).toString(),
        (after?.prepare ?? 0n).toString(),
        maxCount,
        ...(filtered ? [categories] : []),
      ],
    });
    return rows.map(toRecorded);
  }

  return {
    kind: 'postgres',

    async append(stream, events, expected) {
      if (events.length === 0) throw new Error('append needs at least one event');
      try {
        return await appendOnce(stream, events, expected);
      } catch (error) {
        // The same ids raced in from a concurrent retry: once it has committed, this is a duplicate.
        if (isUniqueEventIdViolation(error)) return appendOnce(stream, events, expected);
        throw error;
      }
    },

    async readStream(stream, { direction = 'forwards', fromRevision, maxCount }: ReadStreamOptions = {}) {
      const forwards = direction === 'forwards';
      const from = fromRevision ?? (forwards ? 0n : BigInt(Number.MAX_SAFE_INTEGER));
      const { rows } = await pool.query<EventRow>({
        name: forwards ? 'read_stream_forwards' : 'read_stream_backwards',
        text: `SELECT ${COLUMNS} FROM events WHERE stream_name = $1
               AND stream_revision ${forwards ? '>=' : '<='} $2
               ORDER BY stream_revision ${forwards ? 'ASC' : 'DESC'} LIMIT $3`,
        values: [stream, from.toString(), maxCount ?? null],
      });
      return rows.map(toRecorded);
    },

    readAll,

    subscribe(options: SubscribeOptions) {
      const batchSize = options.batchSize ?? DEFAULT_BATCH;
      return {
        async *[Symbol.asyncIterator]() {
          let after = options.after;
          const { signal } = options;
          while (!signal.aborted) {
            // Listen before reading, so a commit between the read and the wait is not missed.
            const next = wake.next(pollIntervalMs, signal);
            let batch: RecordedEvent[];
            try {
              batch = await readAll({ after, categories: options.categories, maxCount: batchSize });
            } catch (error) {
              if (isAborted(signal)) return;
              logger.warn({ err: error }, 'event store: subscription read failed; retrying');
              await next;
              continue;
            }
            if (batch.length > 0) {
              after = batch[batch.length - 1]?.position ?? after;
              yield batch;
              if (batch.length === batchSize) continue;
            }
            await next;
          }
        },
      };
    },

    async headPosition(categories) {
      const filtered = categories !== undefined && categories.length > 0;
      const { rows } = await pool.query<{ transaction_text: string; global_position: string }>({
        text: `SELECT transaction_id::text AS transaction_text, global_position FROM events
               WHERE ${VISIBLE} ${filtered ? 'AND stream_category = ANY ($1::text[])' : ''}
               ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
        values: filtered ? [categories] : [],
      });
      const row = rows[0];
      return row ? { commit: BigInt(row.transaction_text), prepare: BigInt(row.global_position) } : null;
    },

    async ping() {
      try {
        await pool.query('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },

    async close() {
      await wake.close();
      await pool.end();
    },
  };
}

interface Wakeups {
  /** Resolves at the next notification, after `timeoutMs`, or when `signal` aborts. */
  next(timeoutMs: number, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/**
 * One LISTEN connection per store, shared by every subscription in the process. It connects lazily
 * and reconnects after a drop; while it is down, subscriptions fall back to their poll.
 */
function createWakeups(connectionString: string, logger: Logger): Wakeups {
  const waiters = new Set<() => void>();
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;

  const wakeAll = () => {
    for (const w of [...waiters]) w();
  };

  const connect = (): Promise<void> => {
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString });
      c.on('notification', wakeAll);
      c.on('error', (error) => {
        logger.warn({ err: error }, 'event store: LISTEN connection lost');
        if (client === c) client = undefined;
        c.end().catch(() => undefined);
      });
      try {
        await c.connect();
        await c.query(`LISTEN ${NOTIFY_CHANNEL}`);
        if (closed) await c.end();
        else client = c;
      } catch (error) {
        logger.warn({ err: error }, 'event store: cannot LISTEN; polling only');
        await c.end().catch(() => undefined);
      } finally {
        connecting = undefined;
      }
    })();
    return connecting;
  };

  return {
    next(timeoutMs, signal) {
      if (!client && !closed) void connect();
      return new Promise<void>((done) => {
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(finish);
          signal.removeEventListener('abort', finish);
          done();
        };
        const timer = setTimeout(finish, timeoutMs);
        waiters.add(finish);
        signal.addEventListener('abort', finish, { once: true });
      });
    },
    async close() {
      closed = true;
      await connecting;
      const c = client;
      client = undefined;
      wakeAll();
      await c?.end();
    },
  };
}
