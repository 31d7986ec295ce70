import pg from 'pg';
import type { Logger } from 'pino';
import { isAborted, sleep } from '../../lib/abortable.ts';
import type { EventMetadata, Json, RecordedEvent } from '../envelope.ts';
import type { EventStore, ReadAllOptions, ReadStreamOptions, SubscribeOptions } from './port.ts';
import { createAppend } from './postgres-append.ts';
import { type Upcast, noUpcast } from '../upcasting.ts';

export interface PostgresEventStoreOptions {
  readonly connectionString: string;
  readonly logger: Logger;
  readonly upcast?: Upcast;
  readonly poolSize?: number;
  /**
   * How often a live subscription reads again without a notification, should one be lost. Default 5 s.
   * While the LISTEN connection is down, or events are held back behind an open transaction, it reads
   * again after at most 250 ms instead.
   */
  readonly recheckIntervalMs?: number;
}

/** Re-reads while notifications cannot be relied on (no LISTEN, or events hidden by an open transaction). */
const SHORT_RECHECK_MS = 250;
/**
 * The least time between two reads of a live subscription: under a stream of appends, each read then
 * takes what came in meanwhile as one batch (one transaction of the projection) instead of one batch per
 * append, for at most this much more delay (decision 022).
 */
const GATHER_MS = 25;

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
  visible: boolean;
}

interface Batch {
  readonly events: RecordedEvent[];
  /** Committed events after the batch that an older, still open transaction keeps back. */
  readonly heldBack: boolean;
}

// The text of the transaction id gets a name of its own: an output column named `transaction_id` would
// be what ORDER BY transaction_id sorts by, as text, putting '10000' before '9998'.
const COLUMNS = `global_position, transaction_id::text AS transaction_text, event_id, stream_name,
  stream_revision, event_type, data, metadata, recorded_at`;

// Only what no running transaction can still precede: a transaction that began earlier (a lower id)
// may commit after a reader has passed the later ones, and its event would be skipped for good.
const VISIBLE = 'transaction_id < pg_snapshot_xmin(pg_current_snapshot())';
// Reads select the same condition instead of filtering on it: in (transaction id, position) order every
// visible event comes before every held-back one, so the reader cuts the batch there and knows that
// something is waiting for an open transaction (no notification will come for it).
const VISIBLE_COLUMN = `${VISIBLE} AS visible`;

const AFTER = '(transaction_id, global_position) > ($1::text::xid8, $2::bigint)';
const READ_ALL = `SELECT ${COLUMNS}, ${VISIBLE_COLUMN} FROM events WHERE ${AFTER}
  ORDER BY transaction_id, global_position LIMIT $3`;
// One ordered index scan per category, merged. Each category is a parameter of its own, planned with its
// value (decision 022): given the categories as an array (a lateral join over unnest), the planner cannot
// tell a rare category from a common one, and for a log that is mostly one category it walks the whole
// log's order and filters, so a read that finds nothing costs a scan of every later event.
const readCategories = (count: number) => {
  const scans = Array.from(
    { length: count },
    (_, i) => `(SELECT transaction_id, ${COLUMNS}, ${VISIBLE_COLUMN} FROM events
    WHERE stream_category = $${i + 4} AND ${AFTER}
    ORDER BY transaction_id, global_position LIMIT $3)`,
  );
  return `SELECT * FROM (${scans.join(' UNION ALL ')}) e ORDER BY transaction_id, global_position LIMIT $3`;
};

const HEAD = `SELECT transaction_id::text AS transaction_text, global_position FROM events WHERE ${VISIBLE}
  ORDER BY transaction_id DESC, global_position DESC LIMIT 1`;
const HEAD_OF_CATEGORIES = `SELECT h.transaction_text, h.global_position
  FROM unnest($1::text[]) AS c (category) CROSS JOIN LATERAL (
    SELECT transaction_id, transaction_id::text AS transaction_text, global_position FROM events
    WHERE stream_category = c.category AND ${VISIBLE}
    ORDER BY transaction_id DESC, global_position DESC LIMIT 1
  ) h
  ORDER BY h.transaction_id DESC, h.global_position DESC LIMIT 1`;

/** The adapter over the schema of migration 1763800000000_event-store.sql (decision 007). */
export function createPostgresEventStore(options: PostgresEventStoreOptions): EventStore {
  const { logger } = options;
  const upcast = options.upcast ?? noUpcast;
  const recheckIntervalMs = options.recheckIntervalMs ?? 5_000;
  const shortRecheckMs = Math.min(SHORT_RECHECK_MS, recheckIntervalMs);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
  });
  pool.on('error', (error) => {
    logger.warn({ err: error }, 'event store: idle connection lost');
  });
  const wake = createWakeups(options.connectionString, pool, logger);
  const append = createAppend(pool, (stream) => {
    wake.appended(stream.split('-', 1)[0] ?? stream);
  });

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

  async function readBatch({ after, categories, maxCount }: ReadAllOptions): Promise<Batch> {
    const count = categories?.length ?? 0;
    // Not prepared: a generic plan of the category read cannot know its categories, so it walks the whole
    // log's order and filters, and a read that finds nothing costs a scan of every later event (decision
    // 022). Unnamed, each read is planned with its values.
    const { rows } = await pool.query<EventRow>({
      text: count > 0 ? readCategories(count) : READ_ALL,
      values: [
        (after?.commit ?? 0n).toString(),
        (after?.prepare ?? 0n).toString(),
        maxCount,
        ...(categories ?? []),
      ],
    });
    const held = rows.findIndex((row) => !row.visible);
    const visible = held === -1 ? rows : rows.slice(0, held);
    return { events: visible.map(toRecorded), heldBack: held !== -1 };
  }

  const readAll = async (options: ReadAllOptions) => (await readBatch(options)).events;

  return {
    kind: 'postgres',

    async append(stream, events, expected, timing) {
      if (events.length === 0) throw new Error('append needs at least one event');
      return append(stream, events, expected, timing?.lingerMs ?? 0);
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
          let readAt = 0;
          while (!signal.aborted) {
            const early = readAt + (options.gatherMs ?? GATHER_MS) - Date.now();
            if (early > 0) {
              await sleep(early, signal);
              if (isAborted(signal)) return;
            }
            readAt = Date.now();
            // Listen before reading, so a commit between the read and the wait is not missed.
            const next = wake.next(signal, options.categories);
            let batch: Batch;
            try {
              batch = await readBatch({ after, categories: options.categories, maxCount: batchSize });
            } catch (error) {
              if (isAborted(signal)) return;
              logger.warn({ err: error }, 'event store: subscription read failed; retrying');
              await next.within(shortRecheckMs);
              continue;
            }
            const { events } = batch;
            if (events.length > 0) {
              after = events[events.length - 1]?.position ?? after;
              yield events;
              if (events.length === batchSize) {
                // Catching up: the next batch is there already.
                next.cancel();
                readAt = 0;
                continue;
              }
            }
            // Idle and listening, only a lost notification is left to guard against.
            const quiet = !batch.heldBack && wake.listening();
            await next.within(quiet ? recheckIntervalMs : shortRecheckMs);
          }
        },
      };
    },

    async headPosition(categories) {
      const filtered = categories !== undefined && categories.length > 0;
      const { rows } = await pool.query<{ transaction_text: string; global_position: string }>({
        text: filtered ? HEAD_OF_CATEGORIES : HEAD,
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

interface Wakeup {
  /** Resolves at the notification, after `timeoutMs` from now, or when the signal aborts. */
  within(timeoutMs: number): Promise<void>;
  /** Stops waiting: the caller reads again at once. */
  cancel(): void;
}

interface Wakeups {
  /**
   * Starts waiting for the next notification that may concern `categories` (all when empty or absent)
   * now, so that one arriving before the caller decides how long to wait is not missed.
   */
  next(signal: AbortSignal, categories?: readonly string[]): Wakeup;
  /** Whether notifications are being heard (the LISTEN connection is up). */
  listening(): boolean;
  /**
   * After an append to a stream of `category` committed: wakes this process's subscriptions that read
   * that category (the others would read nothing new), and tells the other processes.
   */
  appended(category: string): void;
  close(): Promise<void>;
}

// Sent after the append's commit, not inside it: a transaction that notifies holds a database-wide lock
// until its commit is on disk, which would make appends commit one at a time instead of together. The
// notification itself need not be durable, so it does not wait for the disk either.
const NOTIFY_GAP_MS = GATHER_MS;
const NOTIFY = `SELECT set_config('synchronous_commit', 'off', true), pg_notify('${NOTIFY_CHANNEL}', $1)`;
const CATEGORY_LIST = /^[A-Za-z0-9_.:]+(,[A-Za-z0-9_.:]+)*$/;
// PostgreSQL refuses a payload of 8,000 bytes or more; a longer list is sent as "every category".
const MAX_PAYLOAD = 4_000;

/**
 * The categories a notification names: its payload lists those appended to since the sender's last
 * notification, comma-separated. An empty or unreadable payload (an older sender, a hand-made NOTIFY)
 * may concern any category: null.
 */
export function notifiedCategories(payload: string | undefined): ReadonlySet<string> | null {
  return payload && CATEGORY_LIST.test(payload) ? new Set(payload.split(',')) : null;
}

const payloadOf = (categories: ReadonlySet<string>): string => {
  const list = [...categories].join(',');
  return list.length <= MAX_PAYLOAD && CATEGORY_LIST.test(list) ? list : '';
};

/**
 * One LISTEN connection per store, shared by every subscription in the process. It connects lazily
 * and reconnects after a drop; while it is down, subscriptions fall back to their timed re-reads. A notification
 * wakes only the subscriptions that read a category it names: under load, waking every projection for
 * every append would cost a read each that finds nothing.
 */
function createWakeups(connectionString: string, pool: pg.Pool, logger: Logger): Wakeups {
  // Each waiter with the categories it reads (null: every category).
  const waiters = new Map<() => void, ReadonlySet<string> | null>();
  // One NOTIFY at a time, naming the categories appended to since the last; appends meanwhile are
  // covered by one more after it.
  const pending = new Set<string>();
  let notifying = false;
  const notifyOthers = () => {
    if (notifying || pending.size === 0) return;
    notifying = true;
    const payload = payloadOf(pending);
    pending.clear();
    pool
      .query(NOTIFY, [payload])
      .catch((error: unknown) => {
        logger.warn(
          { err: error },
          'event store: cannot notify; subscribers elsewhere fall back to timed re-reads',
        );
      })
      .finally(() => {
        // Each NOTIFY takes a transaction id and wakes the other processes' readers: a gap keeps a busy
        // writer from spending one per append (readers gather for as long anyway).
        setTimeout(() => {
          notifying = false;
          notifyOthers();
        }, NOTIFY_GAP_MS).unref();
      });
  };
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;

  const wakeAll = () => {
    for (const w of [...waiters.keys()]) w();
  };
  // This process's own notifications come back too: they give its subscriptions a second look one
  // round trip after the append, when an older transaction that hid it from the first may have ended.
  const wakeReaders = (categories: ReadonlySet<string> | null) => {
    if (categories === null) {
      wakeAll();
      return;
    }
    for (const [w, reads] of [...waiters]) {
      if (reads === null || [...categories].some((c) => reads.has(c))) w();
    }
  };

  const connect = (): Promise<void> => {
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString });
      c.on('notification', (message) => {
        wakeReaders(notifiedCategories(message.payload));
      });
      const lost = () => {
        if (client !== c) return;
        client = undefined;
        // Waiting subscriptions go back to short re-reads until notifications are heard again.
        wakeAll();
      };
      c.on('error', (error) => {
        logger.warn({ err: error }, 'event store: LISTEN connection lost');
        lost();
        c.end().catch(() => undefined);
      });
      c.on('end', lost);
      try {
        await c.connect();
        await c.query(`LISTEN ${NOTIFY_CHANNEL}`);
        if (closed) await c.end();
        else {
          client = c;
          // Appends while nobody listened were announced to no one.
          wakeAll();
        }
      } catch (error) {
        logger.warn({ err: error }, 'event store: cannot LISTEN; timed re-reads only');
        await c.end().catch(() => undefined);
      } finally {
        connecting = undefined;
      }
    })();
    return connecting;
  };

  return {
    next(signal, categories) {
      if (!client && !closed) void connect();
      let woken = false;
      let resolve: (() => void) | undefined;
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        woken = true;
        clearTimeout(timer);
        waiters.delete(finish);
        signal.removeEventListener('abort', finish);
        resolve?.();
      };
      waiters.set(finish, categories && categories.length > 0 ? new Set(categories) : null);
      signal.addEventListener('abort', finish, { once: true });
      return {
        within(timeoutMs) {
          if (woken) return Promise.resolve();
          return new Promise<void>((done) => {
            resolve = done;
            timer = setTimeout(finish, timeoutMs);
          });
        },
        cancel: finish,
      };
    },
    listening: () => client !== undefined,
    appended(category) {
      for (const [w, reads] of [...waiters]) if (reads === null || reads.has(category)) w();
      if (closed) return;
      pending.add(category);
      notifyOthers();
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
