import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { DatabasePool } from 'slonik';
import { awaitStop, isAborted, settledOrAborted, sleep } from '../abortable.ts';
import { runAsLeader } from '../db/leader-lock.ts';
import { describeError } from '../error-text.ts';
import { comparePositions, type RecordedEvent } from '../events/envelope.ts';
import type { EventStore } from '../events/store/port.ts';
import { defaultRetryPolicy, retryDelayMs, type RetryPolicy, validateRetryPolicy } from './backoff.ts';
import { advanceReactionCheckpoint, deadLetterAndAdvance, loadReactionCheckpoint } from './checkpoints.ts';
import { type ReactionMetrics, reactionMetrics } from './metrics.ts';
import { type Reaction, ReactionError, reactsTo, validateReactions } from './reaction.ts';

export interface ReactionRunnerOptions {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  /** For the leader locks, which need connections of their own. */
  readonly connectionString: string;
  readonly reactions: readonly Reaction[];
  readonly logger: Logger;
  readonly registry?: Registry;
  /** Retries of a failing side effect; defaults to `defaultRetryPolicy` (5 attempts, waits from 1 s doubling). */
  readonly retry?: Partial<RetryPolicy>;
  readonly batchSize?: number;
  readonly lockRetryMs?: number;
  /**
   * How long one attempt may take before it counts as failed (default 30 s). A provider that accepts the
   * connection and never answers would otherwise hold the reaction, and every later event, for good.
   */
  readonly attemptTimeoutMs?: number;
  /** The first wait after a database error in the loop itself; it doubles up to 10 s. */
  readonly errorBackoffMs?: number;
}

export interface ReactionRunner {
  /** True while this process is the active runner of that reaction. */
  isLeader(name: string): boolean;
  /** Stops every loop, cutting short backoff waits and in-flight side effects (see ReactionContext). */
  stop(): Promise<void>;
}

type Delivery =
  | { readonly kind: 'handled' }
  | { readonly kind: 'dead'; readonly attempts: number; readonly lastError: string }
  | { readonly kind: 'stopped' };

/**
 * One loop per reaction: become its single active runner (advisory lock `reaction:<name>`), then follow
 * the log from the reaction's checkpoint and run its side effect for each event, in order, at least once.
 *
 * The checkpoint moves after each event reacted to (or dead-lettered), not per batch: a side effect
 * cannot share a transaction with the checkpoint, so a crash repeats whatever ran after the last write,
 * and per event that is at most one side effect (which its idempotency key makes harmless). Reactions
 * see few events (publishes, CSAT answers) and each costs a network call, so one small UPDATE per event
 * is noise. Events the reaction skips move the checkpoint once per batch.
 *
 * Side-effect failures are retried in place with backoff, holding back later events, because reactions
 * keep log order; after the last attempt the event is dead-lettered and the loop moves on. Database
 * errors are not the event's fault: the loop backs off, gives up the lock and starts again from the
 * checkpoint, as the projection runner does.
 */
export function startReactionRunner(options: ReactionRunnerOptions): ReactionRunner {
  const { pool, store, logger } = options;
  validateReactions(options.reactions);
  const policy: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  validateRetryPolicy(policy);
  const batchSize = options.batchSize ?? 100;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 30_000;
  const controller = new AbortController();
  const leaders = new Set<string>();
  const metrics: ReactionMetrics | undefined = options.registry
    ? reactionMetrics({ ...options, registry: options.registry })
    : undefined;

  /** Runs the side effect until it succeeds, is given up on, or this process stops leading. */
  async function deliver(reaction: Reaction, event: RecordedEvent, signal: AbortSignal): Promise<Delivery> {
    const eventLogger = logger.child({ reaction: reaction.name, eventId: event.id, eventType: event.type });
    for (let attempt = 1; ; attempt++) {
      try {
        const attemptSignal = AbortSignal.any([signal, AbortSignal.timeout(attemptTimeoutMs)]);
        const work = reaction.react(event, {
          idempotencyKey: event.id,
          attempt,
          maxAttempts: policy.maxAttempts,
          logger: eventLogger,
          signal: attemptSignal,
        });
        await settledOrAborted(work, attemptSignal);
        metrics?.handled.inc({ reaction: reaction.name });
        return { kind: 'handled' };
      } catch (error) {
        // Cut short by our own stop: not a failure of the side effect, and the next runner redoes it.
        if (isAborted(signal)) return { kind: 'stopped' };
        metrics?.failures.inc({ reaction: reaction.name });
        const reason = describeError(error);
        if (attempt >= policy.maxAttempts || (error instanceof ReactionError && error.permanent)) {
          eventLogger.error({ attempt, reason }, 'reaction: giving up on the event (dead letter)');
          return { kind: 'dead', attempts: attempt, lastError: reason };
        }
        const retryInMs = retryDelayMs(attempt, policy, error);
        eventLogger.warn({ attempt, reason, retryInMs }, 'reaction: side effect failed; retrying');
        await sleep(retryInMs, signal);
        if (isAborted(signal)) return { kind: 'stopped' };
      }
    }
  }

  /** Follows the log while this process leads; returns to reload the checkpoint (or when leading ends). */
  async function follow(reaction: Reaction, signal: AbortSignal): Promise<void> {
    let position = await loadReactionCheckpoint(pool, store, reaction);
    const subscription = store.subscribe({
      after: position,
      categories: reaction.categories,
      batchSize,
      signal,
    });
    const movedElsewhere = () => {
      logger.warn({ reaction: reaction.name }, 'reaction: checkpoint moved elsewhere; reloading');
    };
    for await (const batch of subscription) {
      for (const event of batch) {
        if (isAborted(signal)) return;
        if (!reactsTo(reaction, event)) continue;
        const outcome = await deliver(reaction, event, signal);
        if (outcome.kind === 'stopped') return;
        const moved =
          outcome.kind === 'dead'
            ? await deadLetterAndAdvance(pool, reaction.name, position, { ...outcome, event })
            : await advanceReactionCheckpoint(pool, reaction.name, position, event.position);
        if (!moved) {
          movedElsewhere();
          return;
        }
        position = event.position;
      }
      const last = batch.at(-1);
      if (last && (position === null || comparePositions(last.position, position) > 0)) {
        if (!(await advanceReactionCheckpoint(pool, reaction.name, position, last.position))) {
          movedElsewhere();
          return;
        }
        position = last.position;
      }
    }
  }

  const run = (reaction: Reaction) =>
    runAsLeader(
      {
        connectionString: options.connectionString,
        key: `reaction:${reaction.name}`,
        logger,
        retryMs: options.lockRetryMs,
        kind: 'reaction',
        name: reaction.name,
        errorBackoffMs: options.errorBackoffMs,
        onLeadership: (leading) => {
          if (leading) leaders.add(reaction.name);
          else leaders.delete(reaction.name);
        },
      },
      controller.signal,
      (leading) => follow(reaction, leading),
    );

  const loops = options.reactions.map((r) => run(r));

  return {
    isLeader: (name) => leaders.has(name),
    async stop() {
      controller.abort();
      await awaitStop(Promise.allSettled(loops), logger, 'the reaction runner');
      metrics?.unregister();
    },
  };
}
