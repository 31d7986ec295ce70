/**
 * The KurrentDB adapter of the event store port, over `@kurrent/kurrentdb-client` (KurrentDB 25.x/26.x).
 * Decision 010 says how retried appends are told apart, how positions are read and why subscriptions
 * resume themselves; decision 049 what `lingerMs` and `gatherMs` do here. The parts: record mapping
 * (`kurrentdb-records.ts`), reads (`kurrentdb-reads.ts`), idempotent appends (`kurrentdb-append.ts`) and
 * their retries (`kurrentdb-retry.ts`), and the subscription loop (`kurrentdb-follow.ts`).
 */
import {
  BACKWARDS,
  END,
  FORWARDS,
  KurrentDBClient,
  START,
  type AllStreamResolvedEvent,
} from '@kurrent/kurrentdb-client';
import type { Logger } from 'pino';
import type { RecordedEvent } from '../envelope.ts';
import type { EventStore, ReadStreamOptions } from './port.ts';
import { type Upcast, noUpcast } from '../upcasting.ts';
import { appendOnce } from './kurrentdb-append.ts';
import { followLog, RESUBSCRIBE } from './kurrentdb-follow.ts';
import { readAllEvents, readAllPage, readStreamRecords } from './kurrentdb-reads.ts';
import { logFilter, toRecordedEvent, type StoredRecord } from './kurrentdb-records.ts';
import { APPEND_RETRY, type AppendRetryPolicy, retryLeaderChanges } from './kurrentdb-retry.ts';

export interface KurrentDbEventStoreOptions {
  readonly connectionString: string;
  readonly logger: Logger;
  readonly upcast?: Upcast;
  /** How appends that meet a leader change are retried (kurrentdb-retry.ts). */
  readonly appendRetry?: AppendRetryPolicy;
}

const DEFAULT_BATCH = 500;
/** The PostgreSQL store's default too: a projection behaves the same on either store. */
const DEFAULT_GATHER_MS = 25;

export function createKurrentDbEventStore(options: KurrentDbEventStoreOptions): EventStore {
  const { logger } = options;
  const upcast = options.upcast ?? noUpcast;
  const client = KurrentDBClient.connectionString(options.connectionString);
  // Ends every subscription and every append's wait for a retry on close(): disposing of the client
  // cancels the subscriptions' calls, which the client takes for an unsubscribe and reports to no one.
  const closing = new AbortController();
  const toRecorded = (record: StoredRecord): RecordedEvent | null => toRecordedEvent(record, upcast);

  return {
    kind: 'kurrentdb',

    // `lingerMs` is ignored: each append goes at once, as its own call (decision 049).
    append(stream, events, expected) {
      if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
      return retryLeaderChanges(
        () => appendOnce(client, stream, events, expected),
        options.appendRetry ?? APPEND_RETRY,
        logger,
        closing.signal,
      );
    },

    async readStream(stream, { direction = 'forwards', fromRevision, maxCount }: ReadStreamOptions = {}) {
      if (maxCount !== undefined && maxCount <= 0) return [];
      const forwards = direction === 'forwards';
      const records = await readStreamRecords(client, stream, {
        direction: forwards ? FORWARDS : BACKWARDS,
        fromRevision: fromRevision ?? (forwards ? START : END),
        maxCount,
      });
      return records.flatMap((record) => toRecorded(record) ?? []);
    },

    readAll: (read) => readAllEvents(client, read, toRecorded),

    subscribe({ after, categories, batchSize, gatherMs, signal }) {
      const filter = logFilter(categories);
      return {
        [Symbol.asyncIterator]: () =>
          followLog({
            open: (from) => client.subscribeToAll({ fromPosition: from ?? START, filter }),
            toRecorded: (resolved: AllStreamResolvedEvent) =>
              resolved.event ? toRecorded(resolved.event) : null,
            after,
            batchSize: batchSize ?? DEFAULT_BATCH,
            gatherMs: gatherMs ?? DEFAULT_GATHER_MS,
            signal: AbortSignal.any([signal, closing.signal]),
            logger,
            retry: RESUBSCRIBE,
          }),
      };
    },

    async headPosition(categories) {
      const [newest] = await readAllPage(client, {
        fromPosition: END,
        direction: BACKWARDS,
        filter: logFilter(categories),
        maxCount: 1,
      });
      return newest?.position ?? null;
    },

    async ping() {
      try {
        await readAllPage(client, { fromPosition: END, direction: BACKWARDS, maxCount: 1 });
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
