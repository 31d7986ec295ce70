/**
 * The KurrentDB adapter of the event store port, over `@kurrent/kurrentdb-client` (KurrentDB 25.x/26.x).
 * Decision 010 says how retried appends are told apart, how positions are read and why subscriptions
 * resume themselves.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ANY,
  BACKWARDS,
  END,
  FORWARDS,
  KurrentDBClient,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  streamNameFilter,
  type AllStreamRecordedEvent,
  type AllStreamResolvedEvent,
  type Direction,
  type Filter,
  type JSONEventData,
  type JSONType,
  type ReadPosition,
  type ReadRevision,
  type StreamState,
} from '@kurrent/kurrentdb-client';
import type { Logger } from 'pino';
import { isAborted } from '../../lib/abortable.ts';
import {
  comparePositions,
  type EventMetadata,
  type EventToAppend,
  type Json,
  type Position,
  type RecordedEvent,
} from '../envelope.ts';
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  WrongExpectedRevisionError,
} from './port.ts';
import { type Upcast, noUpcast } from '../upcasting.ts';
import { APPEND_RETRY, type AppendRetryPolicy, retryLeaderChanges } from './kurrentdb-retry.ts';

export interface KurrentDbEventStoreOptions {
  readonly connectionString: string;
  readonly logger: Logger;
  readonly upcast?: Upcast;
  /** How appends that meet a leader change are retried (kurrentdb-retry.ts). */
  readonly appendRetry?: AppendRetryPolicy;
}

const DEFAULT_BATCH = 500;

export interface RetryPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

const RESUBSCRIBE: RetryPolicy = { initialDelayMs: 200, maxDelayMs: 10_000 };

export function toStreamState(expected: ExpectedRevision): StreamState {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  return expected;
}

/** The server-side filter: the categories' streams, or every event but the server's own. */
export function logFilter(categories?: readonly string[]): Filter {
  if (!categories || categories.length === 0) return excludeSystemEvents();
  // With the dash, category `channel` does not take in the streams of `channelPost`.
  return streamNameFilter({ prefixes: categories.map((category) => `${category}-`) });
}

/** True when `position` comes strictly after `after`; no position stands before the whole log. */
export const isAfter = (position: Position, after: Position | null): boolean =>
  after === null || comparePositions(position, after) > 0;

export interface RevisionWindow {
  readonly fromRevision: bigint;
  readonly maxCount: number;
}

/**
 * The revisions where a batch of `count` events appended at `expected` can already stand: right after
 * it (a plain retry), or ending at it (a retry that re-read the stream, found its own first attempt and
 * so expects the revision that attempt produced).
 */
export function idempotencyWindow(expected: 'no_stream' | bigint, count: number): RevisionWindow {
  const last = expected === 'no_stream' ? -1n : expected;
  const size = BigInt(count);
  const from = last - size + 1n > 0n ? last - size + 1n : 0n;
  return { fromRevision: from, maxCount: Number(last + size - from + 1n) };
}

export interface StoredRef {
  readonly id: string;
  readonly revision: bigint;
  readonly position: Position;
}

/**
 * Where a batch of event ids stands among stored events: its last event when all of them are there in
 * order, 'none' when none is, 'some' otherwise (a different batch reusing ids: never a retry).
 */
export function storedBatch(
  stored: readonly StoredRef[],
  ids: readonly string[],
): StoredRef | 'none' | 'some' {
  // Ids compare as UUIDs, whatever case each side spells them in.
  const wanted = ids.map((id) => id.toLowerCase());
  const start = stored.findIndex((s) => s.id.toLowerCase() === wanted[0]);
  if (start === -1) return stored.some((s) => wanted.includes(s.id.toLowerCase())) ? 'some' : 'none';
  const run = stored.slice(start, start + wanted.length);
  const whole = run.length === wanted.length && run.every((s, i) => s.id.toLowerCase() === wanted[i]);
  return whole ? (run.at(-1) ?? 'none') : 'some';
}

export const retryDelay = (attempt: number, policy: RetryPolicy): number =>
  Math.min(policy.initialDelayMs * 2 ** attempt, policy.maxDelayMs);

/** What the adapter uses of a stored event, from a stream read, a $all read or a subscription alike. */
interface StoredRecord {
  readonly streamId: string;
  readonly id: string;
  readonly type: string;
  readonly revision: bigint;
  readonly isJson: boolean;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly created: Date;
  readonly position?: Position | undefined;
}

const isSystem = (name: string): boolean => name.startsWith('$');

const isEventMetadata = (value: unknown): value is EventMetadata =>
  typeof value === 'object' &&
  value !== null &&
  'schemaVersion' in value &&
  typeof value.schemaVersion === 'number';

/** Null for the server's own events; throws on an event this service cannot have written. */
function toRecordedEvent(record: StoredRecord, upcast: Upcast): RecordedEvent | null {
  // A deletion tombstone, for one, sits in the deleted stream itself and so passes a category filter.
  if (isSystem(record.streamId) || isSystem(record.type)) return null;
  const where = `event ${record.id} in ${record.streamId}`;
  if (!record.isJson) throw new Error(`${where} is not JSON`);
  if (!record.position) throw new Error(`${where} came without its position (server older than 22.6?)`);
  if (!isEventMetadata(record.metadata)) throw new Error(`${where} has no metadata envelope`);
  return upcast({
    id: record.id,
    type: record.type,
    // The client parsed it from the stored JSON.
    data: record.data as Json,
    metadata: record.metadata,
    streamName: record.streamId,
    streamRevision: record.revision,
    position: record.position,
    recordedAt: record.created,
  });
}

function toEventData(event: EventToAppend): JSONEventData {
  return {
    id: event.id,
    contentType: 'application/json',
    type: event.type,
    // The client JSON.stringify()s any data; its type only admits objects, arrays and strings.
    data: event.data as JSONType,
    metadata: event.metadata,
  };
}

const describePosition = (position: Position | null): string =>
  position ? `${position.commit.toString()}/${position.prepare.toString()}` : 'start';

export function createKurrentDbEventStore(options: KurrentDbEventStoreOptions): EventStore {
  const { logger } = options;
  const upcast = options.upcast ?? noUpcast;
  const client = KurrentDBClient.connectionString(options.connectionString);
  // Ends every subscription on close(): disposing of the client cancels their calls, which the client
  // takes for an unsubscribe and reports to no one.
  const closing = new AbortController();
  const toRecorded = (record: StoredRecord): RecordedEvent | null => toRecordedEvent(record, upcast);
  const recordedOnly = (records: readonly StoredRecord[]): RecordedEvent[] =>
    records.flatMap((record) => toRecorded(record) ?? []);

  async function readStreamRecords(
    stream: string,
    read: { direction: Direction; fromRevision: ReadRevision; maxCount?: number | undefined },
  ): Promise<StoredRecord[]> {
    const records: StoredRecord[] = [];
    try {
      for await (const resolved of client.readStream(stream, read)) {
        if (resolved.event) records.push(resolved.event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return records;
  }

  async function readAllPage(read: {
    fromPosition: ReadPosition;
    direction: Direction;
    filter?: Filter;
    maxCount: number;
  }): Promise<AllStreamRecordedEvent[]> {
    const records: AllStreamRecordedEvent[] = [];
    for await (const resolved of client.readAll(read)) {
      if (resolved.event) records.push(resolved.event);
    }
    return records;
  }

  /** The original result when the batch is stored already (see the top of this file). */
  async function previousAppend(
    stream: string,
    events: readonly EventToAppend[],
    expected: 'no_stream' | bigint,
  ): Promise<AppendResult | null> {
    const window = idempotencyWindow(expected, events.length);
    const records = await readStreamRecords(stream, { direction: FORWARDS, ...window });
    const refs = records.flatMap((r) =>
      r.position ? [{ id: r.id, revision: r.revision, position: r.position }] : [],
    );
    const found = storedBatch(
      refs,
      events.map((e) => e.id),
    );
    if (found === 'none') return null;
    if (found === 'some') throw new Error(`some of these event ids are stored already in ${stream}`);
    return { nextRevision: found.revision, position: found.position, written: false };
  }

  /** Only for servers that answer an append without a position. */
  async function positionAt(stream: string, revision: bigint): Promise<Position> {
    const [record] = await readStreamRecords(stream, {
      direction: FORWARDS,
      fromRevision: revision,
      maxCount: 1,
    });
    if (!record?.position) throw new Error(`no position for revision ${revision.toString()} of ${stream}`);
    return record.position;
  }

  /** One attempt of an append; a retry finds its first attempt's events and answers `written: false`. */
  async function appendOnce(
    stream: string,
    events: readonly EventToAppend[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    if (expected !== 'any') {
      const previous = await previousAppend(stream, events, expected);
      if (previous) return previous;
    }
    try {
      const result = await client.appendToStream(stream, events.map(toEventData), {
        streamState: toStreamState(expected),
      });
      const position = result.position ?? (await positionAt(stream, result.nextExpectedRevision));
      return { nextRevision: result.nextExpectedRevision, position, written: true };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      const previous = expected === 'any' ? null : await previousAppend(stream, events, expected);
      if (previous) return previous;
      throw new WrongExpectedRevisionError(stream, expected, error.actualState);
    }
  }

  async function readAll({ after, categories, maxCount }: ReadAllOptions): Promise<RecordedEvent[]> {
    const filter = logFilter(categories);
    const events: RecordedEvent[] = [];
    let cursor = after;
    // More than one page only when the server's own events (skipped here) took places in one.
    while (events.length < maxCount) {
      // The event at the cursor itself comes back first: one more than still wanted.
      const wanted = maxCount - events.length + (cursor ? 1 : 0);
      const page = await readAllPage({
        fromPosition: cursor ?? START,
        direction: FORWARDS,
        filter,
        maxCount: wanted,
      });
      for (const record of page) {
        if (events.length === maxCount) break;
        const { position } = record;
        if (!isAfter(position, cursor)) continue;
        cursor = position;
        const event = toRecorded(record);
        if (event) events.push(event);
      }
      if (page.length < wanted) break;
    }
    return events;
  }

  return {
    kind: 'kurrentdb',

    append(stream, events, expected) {
      if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
      const attempt = () => appendOnce(stream, events, expected);
      return retryLeaderChanges(attempt, options.appendRetry ?? APPEND_RETRY, logger);
    },

    async readStream(stream, { direction = 'forwards', fromRevision, maxCount }: ReadStreamOptions = {}) {
      if (maxCount !== undefined && maxCount <= 0) return [];
      const forwards = direction === 'forwards';
      const records = await readStreamRecords(stream, {
        direction: forwards ? FORWARDS : BACKWARDS,
        fromRevision: fromRevision ?? (forwards ? START : END),
        maxCount,
      });
      return recordedOnly(records);
    },

    readAll,

    subscribe({ after, categories, batchSize, signal }) {
      const filter = logFilter(categories);
      return {
        [Symbol.asyncIterator]: () =>
          followLog({
            open: (from) => client.subscribeToAll({ fromPosition: from ?? START, filter }),
            toRecorded: (resolved: AllStreamResolvedEvent) =>
              resolved.event ? toRecorded(resolved.event) : null,
            after,
            batchSize: batchSize ?? DEFAULT_BATCH,
            signal: AbortSignal.any([signal, closing.signal]),
            logger,
            retry: RESUBSCRIBE,
          }),
      };
    },

    async headPosition(categories) {
      const [newest] = await readAllPage({
        fromPosition: END,
        direction: BACKWARDS,
        filter: logFilter(categories),
        maxCount: 1,
      });
      return newest?.position ?? null;
    },

    async ping() {
      try {
        await readAllPage({ fromPosition: END, direction: BACKWARDS, maxCount: 1 });
        return true;
      } catch {
        return false;
      }
    },

    async close() {
      closing.abort();
      await client.dispose();
    },
  };
}

/** The part of the client's subscription (a Node.js Readable) that the follow loop uses. */
export interface SubscriptionSource<T> {
  on(event: 'data', listener: (item: T) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  pause(): unknown;
  resume(): unknown;
  unsubscribe(): Promise<void>;
  destroy(): unknown;
}

export interface FollowOptions<T> {
  /** Opens a subscription that starts after `after` (exclusive), or at the start of the log. */
  readonly open: (after: Position | null) => SubscriptionSource<T>;
  /** Null for what is not delivered (the server's own events). */
  readonly toRecorded: (item: T) => RecordedEvent | null;
  readonly after: Position | null;
  readonly batchSize: number;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly retry: RetryPolicy;
}

/**
 * Batches of the log after `after`, each event once and in order, across as many subscriptions as drops
 * make necessary; returns when `signal` aborts.
 */
export async function* followLog<T>(options: FollowOptions<T>): AsyncGenerator<readonly RecordedEvent[]> {
  const { signal, retry, logger } = options;
  const stopped = () => isAborted(signal);
  let last = options.after;
  let failures = 0;
  while (!stopped()) {
    const openedAt = Date.now();
    const source = options.open(last);
    let end: SessionEnd;
    try {
      end = yield* deliverSession(source, last, options);
    } finally {
      await release(source);
    }
    if (stopped()) return;
    last = end.last;
    // A subscription that delivered, or stayed up longer than the longest wait, was a healthy one.
    const healthy = end.delivered || Date.now() - openedAt >= retry.maxDelayMs;
    failures = healthy ? 1 : failures + 1;
    const retryInMs = retryDelay(failures - 1, retry);
    logger.warn(
      { ...(end.error ? { err: end.error } : {}), after: describePosition(last), retryInMs },
      end.error
        ? 'event store: subscription dropped; resubscribing'
        : 'event store: subscription ended by the server; resubscribing',
    );
    await sleep(retryInMs, undefined, { signal }).catch(() => undefined);
  }
}

interface SessionEnd {
  readonly last: Position | null;
  readonly delivered: boolean;
  readonly error: Error | undefined;
}

async function* deliverSession<T>(
  source: SubscriptionSource<T>,
  from: Position | null,
  options: FollowOptions<T>,
): AsyncGenerator<readonly RecordedEvent[], SessionEnd> {
  const buffer = bufferSource(source, options.batchSize);
  let last = from;
  let delivered = false;
  for (;;) {
    const next = await buffer.take(options.batchSize, options.signal);
    if (next.done) return { last, delivered, error: next.error };
    const batch = eventsAfter(next.items, last, options.toRecorded);
    const newest = batch.at(-1);
    if (!newest) continue;
    last = newest.position;
    delivered = true;
    yield batch;
  }
}

/** Converts `items`, keeping only events past `after` and each past the one before it. */
function eventsAfter<T>(
  items: readonly T[],
  after: Position | null,
  toRecorded: (item: T) => RecordedEvent | null,
): RecordedEvent[] {
  const fresh: RecordedEvent[] = [];
  let cursor = after;
  for (const item of items) {
    const event = toRecorded(item);
    if (event && isAfter(event.position, cursor)) {
      fresh.push(event);
      cursor = event.position;
    }
  }
  return fresh;
}

async function release<T>(source: SubscriptionSource<T>): Promise<void> {
  // Fails when the call never started; there is nothing to cancel then.
  await source.unsubscribe().catch(() => undefined);
  source.destroy();
}

type Taken<T> =
  { readonly done: false; readonly items: T[] } | { readonly done: true; readonly error: Error | undefined };

/**
 * Buffers what the subscription pushes so that the consumer takes all of it at once, up to a batch;
 * the subscription is paused (and the server held back) while a whole batch waits.
 */
function bufferSource<T>(source: SubscriptionSource<T>, highWater: number) {
  const queue: T[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  source.on('data', (item) => {
    queue.push(item);
    if (queue.length >= highWater) source.pause();
    notify();
  });
  source.on('error', (error) => {
    failure ??= error;
    ended = true;
    notify();
  });
  const onEnd = () => {
    ended = true;
    notify();
  };
  source.on('end', onEnd);
  source.on('close', onEnd);

  const change = (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      wake = done;
      signal.addEventListener('abort', done, { once: true });
    });

  return {
    /** Waits for at least one item; done once the source has ended and everything was taken. */
    async take(max: number, signal: AbortSignal): Promise<Taken<T>> {
      while (queue.length === 0 && !ended && !signal.aborted) await change(signal);
      if (signal.aborted || queue.length === 0)
        return { done: true, error: signal.aborted ? undefined : failure };
      const items = queue.splice(0, max);
      if (queue.length < highWater) source.resume();
      return { done: false, items };
    },
  };
}
