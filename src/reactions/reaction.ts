import type { Logger } from 'pino';
import type { RecordedEvent } from '../events/envelope.ts';

/** What a reaction gets with each event besides the event itself. */
export interface ReactionContext {
  /**
   * The event's id. Send it to the provider or push service as the idempotency key: the runner delivers
   * at least once, so the same event may reach `react` again after a crash, a takeover or a retry.
   */
  readonly idempotencyKey: string;
  /** 1 for the first try of this event in this process, then 2, 3, ... up to `maxAttempts`. */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** Carries the reaction's name and the event's id and type; never log the event's data. */
  readonly logger: Logger;
  /**
   * Aborts when this process stops running the reaction (shutdown, lost leadership). Pass it to the
   * side effect's HTTP call: whatever was cut short is delivered again by the next active runner.
   */
  readonly signal: AbortSignal;
}

/**
 * Events -> side effects (ARCHITECTURE.md, "Projections and reactions"): a push on publish, a note at the
 * provider. The runner calls `react` outside any database transaction, once per event in log order,
 * retrying failures with backoff and dead-lettering the event after the last attempt.
 *
 * Whatever `react` throws is recorded by its name and message in the log and in `reaction_dead_letters`,
 * so error messages must not carry event data or personal data.
 */
export interface Reaction {
  /** Names the checkpoint, the leader lock (`reaction:<name>`) and the metrics' `reaction` label. */
  readonly name: string;
  /** The stream categories to follow (at least one). */
  readonly categories: readonly string[];
  /** Event types to react to; absent reacts to every event of the categories. */
  readonly handles?: readonly string[];
  /**
   * Where a reaction with no checkpoint yet begins. `now` (the default) starts after the newest event
   * when the reaction first runs: a reaction added to a running system must not, say, push a
   * notification for every post ever published. `beginning` replays the whole log once.
   */
  readonly startFrom?: 'now' | 'beginning';
  react(event: RecordedEvent, context: ReactionContext): Promise<void>;
}

/**
 * Thrown by `react` to steer the retries: `permanent` gives up at once (a 4xx that no retry will change,
 * a recipient that does not exist), `retryAfterMs` waits at least that long before the next attempt (a
 * provider's 429 with Retry-After). Any other error is retried with the runner's backoff.
 */
export class ReactionError extends Error {
  readonly permanent: boolean;
  readonly retryAfterMs: number | undefined;
  constructor(
    message: string,
    options: { permanent?: boolean; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ReactionError';
    this.permanent = options.permanent ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}

// Part of a lock key and a metric label: keep it plain.
const namePattern = /^[a-z][a-zA-Z0-9_-]{0,62}$/;

/** Fails fast at start-up on a reaction that could not be run as declared. */
export function validateReactions(reactions: readonly Reaction[]): void {
  const seen = new Set<string>();
  for (const reaction of reactions) {
    if (!namePattern.test(reaction.name)) throw new Error(`invalid reaction name '${reaction.name}'`);
    if (seen.has(reaction.name)) throw new Error(`two reactions are named '${reaction.name}'`);
    seen.add(reaction.name);
    // An empty list means "every stream" to the event store: too easy to get by mistake.
    if (reaction.categories.length === 0) throw new Error(`reaction '${reaction.name}' follows no category`);
  }
}

export const reactsTo = (reaction: Reaction, event: RecordedEvent): boolean =>
  reaction.handles === undefined || reaction.handles.includes(event.type);
