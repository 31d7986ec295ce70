import type { Logger } from 'pino';
import type { RecordedEvent } from '../events/envelope.ts';

/** What a processor gets with each event besides the event itself. */
export interface ProcessorContext {
  /**
   * The event's id. Send it to the provider or push service as the idempotency key: the runner delivers
   * at least once, so the same event may reach `process` again after a crash, a takeover or a retry.
   */
  readonly idempotencyKey: string;
  /** 1 for the first try of this event in this process, then 2, 3, ... up to `maxAttempts`. */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** Carries the processor's name and the event's id and type; never log the event's data. */
  readonly logger: Logger;
  /**
   * Aborts when this process stops running the processor (shutdown, lost leadership). Pass it to the
   * side effect's HTTP call: whatever was cut short is delivered again by the next active runner.
   */
  readonly signal: AbortSignal;
}

/**
 * Events -> side effects (ARCHITECTURE.md, "Projections and processors"): a push on publish, a note at the
 * provider. The runner calls `process` outside any database transaction, once per event in log order,
 * retrying failures with backoff and dead-lettering the event after the last attempt.
 *
 * Whatever `process` throws is recorded by its name and message in the log and in `processor_dead_letters`,
 * so error messages must not carry event data or personal data.
 */
export interface Processor {
  /** Names the checkpoint, the leader lock (`processor:<name>`) and the metrics' `processor` label. */
  readonly name: string;
  /** The stream categories to follow (at least one). */
  readonly categories: readonly string[];
  /** Event types to process; absent processes every event of the categories. */
  readonly handles?: readonly string[];
  /**
   * Where a processor with no checkpoint yet begins. `now` (the default) starts after the newest event
   * when the processor first runs: a processor added to a running system must not, say, push a
   * notification for every post ever published. `beginning` replays the whole log once.
   */
  readonly startFrom?: 'now' | 'beginning';
  process(event: RecordedEvent, context: ProcessorContext): Promise<void>;
}

/**
 * Thrown by `process` to steer the retries: `permanent` gives up at once (a 4xx that no retry will change,
 * a recipient that does not exist), `retryAfterMs` waits at least that long before the next attempt (a
 * provider's 429 with Retry-After). Any other error is retried with the runner's backoff.
 */
export class ProcessorError extends Error {
  readonly permanent: boolean;
  readonly retryAfterMs: number | undefined;
  constructor(
    message: string,
    options: { permanent?: boolean; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProcessorError';
    this.permanent = options.permanent ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** How long the failed side effect asked to be left alone (0: no wish; the backoff decides). */
export const retryAfterOf = (error: unknown): number =>
  error instanceof ProcessorError ? (error.retryAfterMs ?? 0) : 0;

// Part of a lock key and a metric label: keep it plain.
const namePattern = /^[a-z][a-zA-Z0-9_-]{0,62}$/;

/** Fails fast at start-up on a processor that could not be run as declared. */
export function validateProcessors(processors: readonly Processor[]): void {
  const seen = new Set<string>();
  for (const processor of processors) {
    if (!namePattern.test(processor.name)) throw new Error(`invalid processor name '${processor.name}'`);
    if (seen.has(processor.name)) throw new Error(`two processors are named '${processor.name}'`);
    seen.add(processor.name);
    // An empty list means "every stream" to the event store: too easy to get by mistake.
    if (processor.categories.length === 0)
      throw new Error(`processor '${processor.name}' follows no category`);
  }
}

export const handlesEvent = (processor: Processor, event: RecordedEvent): boolean =>
  processor.handles === undefined || processor.handles.includes(event.type);
