import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { DatabasePool } from 'slonik';
import { awaitStop, isAborted, settledOrAborted, sleep } from '../lib/abortable.ts';
import { type LeaderLocks, runAsLeader } from '../db/leader-lock.ts';
import { describeError } from '../lib/error-text.ts';
import { comparePositions, type RecordedEvent } from '../events/envelope.ts';
import type { EventStore } from '../events/store/port.ts';
import { retryDelayMs, type RetryPolicy, validateRetryPolicy } from '../lib/backoff.ts';
import { advanceProcessorCheckpoint, deadLetterAndAdvance, loadProcessorCheckpoint } from './checkpoints.ts';
import { type ProcessorMetrics, processorMetrics } from './metrics.ts';
import {
  type Processor,
  ProcessorError,
  handlesEvent,
  retryAfterOf,
  validateProcessors,
} from './processor.ts';

/**
 * Waits of about 1, 2, 4 and 8 s (with jitter, 7.5 to 15 s in all) before the fifth attempt fails for good.
 * Short on purpose: a processor keeps log order, so while it retries one event every later one waits. A
 * longer outage leaves dead letters, which are counted and visible, rather than minutes of silence.
 */
export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 60_000 };

export interface ProcessorRunnerOptions {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  /** This process's leader locks (one connection for every loop). */
  readonly locks: LeaderLocks;
  readonly processors: readonly Processor[];
  readonly logger: Logger;
  readonly registry?: Registry;
  /** Retries of a failing side effect; defaults to `defaultRetryPolicy` (5 attempts, waits from 1 s doubling). */
  readonly retry?: Partial<RetryPolicy>;
  readonly batchSize?: number;
  /**
   * How long one attempt may take before it counts as failed (default 30 s). A provider that accepts the
   * connection and never answers would otherwise hold the processor, and every later event, for good.
   */
  readonly attemptTimeoutMs?: number;
  /** The first wait after a database error in the loop itself; it doubles up to 10 s. */
  readonly errorBackoffMs?: number;
}

export interface ProcessorRunner {
  /** True while this process is the active runner of that processor. */
  isLeader(name: string): boolean;
  /** Stops every loop, cutting short backoff waits and in-flight side effects (see ProcessorContext). */
  stop(): Promise<void>;
}

type Delivery =
  | { readonly kind: 'handled' }
  | { readonly kind: 'dead'; readonly attempts: number; readonly lastError: string }
  | { readonly kind: 'stopped' };

/**
 * One loop per processor: become its single active runner (advisory lock `processor:<name>`), then follow
 * the log from the processor's checkpoint and run its side effect for each event, in order, at least once.
 *
 * The checkpoint moves after each event reacted to (or dead-lettered), not per batch: a side effect
 * cannot share a transaction with the checkpoint, so a crash repeats whatever ran after the last write,
 * and per event that is at most one side effect (which its idempotency key makes harmless). Processors
 * see few events (publishes, CSAT answers) and each costs a network call, so one small UPDATE per event
 * is noise. Events the processor skips move the checkpoint once per batch.
 *
 * Side-effect failures are retried in place with backoff, holding back later events, because processors
 * keep log order; after the last attempt the event is dead-lettered and the loop moves on. Database
 * errors are not the event's fault: the loop backs off, gives up the lock and starts again from the
 * checkpoint, as the projection runner does.
 */
export function startProcessorRunner(options: ProcessorRunnerOptions): ProcessorRunner {
  const { pool, store, logger } = options;
  validateProcessors(options.processors);
  const policy: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  validateRetryPolicy(policy);
  const batchSize = options.batchSize ?? 100;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 30_000;
  const controller = new AbortController();
  const leaders = new Set<string>();
  const metrics: ProcessorMetrics | undefined = options.registry
    ? processorMetrics({ ...options, registry: options.registry })
    : undefined;

  /** Runs the side effect until it succeeds, is given up on, or this process stops leading. */
  async function deliver(processor: Processor, event: RecordedEvent, signal: AbortSignal): Promise<Delivery> {
    const eventLogger = logger.child({ processor: processor.name, eventId: event.id, eventType: event.type });
    for (let attempt = 1; ; attempt++) {
      try {
        const attemptSignal = AbortSignal.any([signal, AbortSignal.timeout(attemptTimeoutMs)]);
        const work = processor.process(event, {
          idempotencyKey: event.id,
          attempt,
          maxAttempts: policy.maxAttempts,
          logger: eventLogger,
          signal: attemptSignal,
        });
        await settledOrAborted(work, attemptSignal);
        metrics?.handled.inc({ processor: processor.name });
        return { kind: 'handled' };
      } catch (error) {
        // Cut short by our own stop: not a failure of the side effect, and the next runner redoes it.
        if (isAborted(signal)) return { kind: 'stopped' };
        metrics?.failures.inc({ processor: processor.name });
        const reason = describeError(error);
        if (attempt >= policy.maxAttempts || (error instanceof ProcessorError && error.permanent)) {
          eventLogger.error({ attempt, reason }, 'processor: giving up on the event (dead letter)');
          return { kind: 'dead', attempts: attempt, lastError: reason };
        }
        const retryInMs = retryDelayMs(attempt, policy, retryAfterOf(error));
        eventLogger.warn({ attempt, reason, retryInMs }, 'processor: side effect failed; retrying');
        await sleep(retryInMs, signal);
        if (isAborted(signal)) return { kind: 'stopped' };
      }
    }
  }

  /** Follows the log while this process leads; returns to reload the checkpoint (or when leading ends). */
  async function follow(processor: Processor, signal: AbortSignal): Promise<void> {
    let position = await loadProcessorCheckpoint(pool, store, processor);
    const subscription = store.subscribe({
      after: position,
      categories: processor.categories,
      batchSize,
      signal,
    });
    const movedElsewhere = () => {
      logger.warn({ processor: processor.name }, 'processor: checkpoint moved elsewhere; reloading');
    };
    for await (const batch of subscription) {
      for (const event of batch) {
        if (isAborted(signal)) return;
        if (!handlesEvent(processor, event)) continue;
        const outcome = await deliver(processor, event, signal);
        if (outcome.kind === 'stopped') return;
        const moved =
          outcome.kind === 'dead'
            ? await deadLetterAndAdvance(pool, processor.name, position, { ...outcome, event })
            : await advanceProcessorCheckpoint(pool, processor.name, position, event.position);
        if (!moved) {
          movedElsewhere();
          return;
        }
        position = event.position;
      }
      const last = batch.at(-1);
      if (last && (position === null || comparePositions(last.position, position) > 0)) {
        if (!(await advanceProcessorCheckpoint(pool, processor.name, position, last.position))) {
          movedElsewhere();
          return;
        }
        position = last.position;
      }
    }
  }

  const run = (processor: Processor) =>
    runAsLeader(
      {
        locks: options.locks,
        key: `processor:${processor.name}`,
        logger,
        kind: 'processor',
        name: processor.name,
        errorBackoffMs: options.errorBackoffMs,
        onLeadership: (leading) => {
          if (leading) leaders.add(processor.name);
          else leaders.delete(processor.name);
        },
      },
      controller.signal,
      (leading) => follow(processor, leading),
    );

  const loops = options.processors.map((r) => run(r));

  return {
    isLeader: (name) => leaders.has(name),
    async stop() {
      controller.abort();
      await awaitStop(Promise.allSettled(loops), logger, 'the processor runner');
      metrics?.unregister();
    },
  };
}
