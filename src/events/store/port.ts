import type { EventToAppend, Position, RecordedEvent } from '../envelope.ts';

/**
 * The revision a stream must be at for an append to go through: `no_stream` (it must not exist yet),
 * `any` (no check: high-volume streams deduplicated downstream), or the revision of its last event.
 */
export type ExpectedRevision = 'no_stream' | 'any' | bigint;

export interface AppendResult {
  /** The revision of the stream's last event after the append. */
  readonly nextRevision: bigint;
  /** Where the last appended event stands in the global log. */
  readonly position: Position;
  /** False when every event id was already stored: nothing new was written (an idempotent retry). */
  readonly written: boolean;
}

export interface ReadStreamOptions {
  readonly direction?: 'forwards' | 'backwards';
  /** Inclusive; defaults to the first revision (forwards) or the last (backwards). */
  readonly fromRevision?: bigint;
  readonly maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive; null reads from the start of the log. */
  readonly after: Position | null;
  /** Only streams of these categories; empty or absent reads every stream. */
  readonly categories?: readonly string[];
  readonly maxCount: number;
  /**
   * Event types whose personal fields the reader never reads: a store that seals them (decision 048)
   * leaves them sealed and gives them as null, as if erased, which spares opening them.
   */
  readonly unopened?: readonly string[];
}

export interface SubscribeOptions extends Omit<ReadAllOptions, 'maxCount'> {
  /** Upper bound of one delivered batch. */
  readonly batchSize?: number;
  /**
   * The least time between two live reads, so that events arriving meanwhile come as one batch (an
   * adapter may ignore it). Longer for a high-volume reader whose readers can wait a little.
   */
  readonly gatherMs?: number;
  /** Ends the subscription; the iteration then returns. */
  readonly signal: AbortSignal;
}

/**
 * The event store port (ARCHITECTURE.md, "Event store"). Adapters: `postgres.ts` (embedded default and
 * tests) and `kurrentdb.ts` (production). Events come back upcast to their current schema version.
 */
export interface AppendTiming {
  /**
   * How long this append may wait for others to commit with it (an adapter may ignore it): for a
   * high-volume write whose caller can wait a little, so that many go in one transaction.
   */
  readonly lingerMs?: number;
}

export interface EventStore {
  readonly kind: 'postgres' | 'kurrentdb';
  /**
   * Appends atomically. Throws `WrongExpectedRevisionError` when the stream is not at `expected`.
   * Appending event ids that are all stored already is a no-op returning the original result.
   */
  append(
    stream: string,
    events: readonly EventToAppend[],
    expected: ExpectedRevision,
    options?: AppendTiming,
  ): Promise<AppendResult>;
  /** An absent stream reads as empty. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** The global log in the store's order, only what no later commit can precede. */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * Catch-up, then live: batches of events after `after`, in the store's order, each exactly once. The
   * iteration survives dropped connections (it resumes after the last delivered event) and ends when
   * `signal` aborts.
   */
  subscribe(options: SubscribeOptions): AsyncIterable<readonly RecordedEvent[]>;
  /** The position of the newest event (null when the log is empty). */
  headPosition(categories?: readonly string[]): Promise<Position | null>;
  /**
   * A hint that events about this user will be appended soon (a store may ignore it): a store that seals
   * personal fields makes the user's data key meanwhile, so that a new user's first append does not wait
   * for it.
   */
  prepareFor?(userId: string): void;
  /** True when the store answers; for /health/ready. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  readonly stream: string;
  readonly expected: ExpectedRevision;
  /** The stream's revision as found, or 'no_stream'. */
  readonly actual: bigint | 'no_stream';
  constructor(stream: string, expected: ExpectedRevision, actual: bigint | 'no_stream') {
    super(`stream ${stream} is at ${String(actual)}, expected ${String(expected)}`);
    this.name = 'WrongExpectedRevisionError';
    this.stream = stream;
    this.expected = expected;
    this.actual = actual;
  }
}
