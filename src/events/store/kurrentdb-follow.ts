/**
 * `subscribe` on KurrentDB: catch-up, then live, across as many `$all` subscriptions as drops make
 * necessary. The client does not resume a dropped subscription, so this loop reopens one after the last
 * delivered event, with backoff, and drops anything at or before it: each event once, in order.
 */
import type { Logger } from 'pino';
import { isAborted, sleep } from '../../lib/abortable.ts';
import { retryDelayMs, type RetryPolicy } from '../../lib/backoff.ts';
import type { Position, RecordedEvent } from '../envelope.ts';
import { bufferSource, type SubscriptionSource } from './kurrentdb-buffer.ts';
import { describePosition, isAfter } from './kurrentdb-records.ts';

/** The wait before reopening a dropped subscription; it never gives up. */
export type ResubscribePolicy = Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>;

export const RESUBSCRIBE: ResubscribePolicy = { baseDelayMs: 200, maxDelayMs: 10_000 };

/** The wait after the `failures`-th drop in a row: doubling, capped, jittered (`src/lib/backoff.ts`). */
export const resubscribeDelayMs = (failures: number, policy: ResubscribePolicy): number =>
  retryDelayMs(failures, { ...policy, maxAttempts: Number.POSITIVE_INFINITY });

export interface FollowOptions<T> {
  /** Opens a subscription that starts after `after` (exclusive), or at the start of the log. */
  readonly open: (after: Position | null) => SubscriptionSource<T>;
  /** Null for what is not delivered (the server's own events). */
  readonly toRecorded: (item: T) => RecordedEvent | null;
  readonly after: Position | null;
  readonly batchSize: number;
  /**
   * The least time between two deliveries, so that events arriving meanwhile come as one batch; not
   * waited after a full batch (catching up: the next one is there already).
   */
  readonly gatherMs: number;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly retry: ResubscribePolicy;
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
    const retryInMs = resubscribeDelayMs(failures, retry);
    logger.warn(
      { ...(end.error ? { err: end.error } : {}), after: describePosition(last), retryInMs },
      end.error
        ? 'event store: subscription dropped; resubscribing'
        : 'event store: subscription ended by the server; resubscribing',
    );
    await sleep(retryInMs, signal);
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
  const { batchSize, signal } = options;
  const buffer = bufferSource(source, batchSize);
  let last = from;
  let delivered = false;
  // When the next delivery may come at the earliest.
  let gatheredUntil = 0;
  for (;;) {
    await buffer.gather(batchSize, gatheredUntil - Date.now(), signal);
    const next = await buffer.take(batchSize, signal);
    if (next.done) return { last, delivered, error: next.error };
    const batch = eventsAfter(next.items, last, options.toRecorded);
    const newest = batch.at(-1);
    if (!newest) continue;
    last = newest.position;
    delivered = true;
    gatheredUntil = next.items.length < batchSize ? Date.now() + options.gatherMs : 0;
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
