import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { type DatabasePool, sql } from 'slonik';
import { awaitStop, sleep } from '../lib/abortable.ts';
import { type LeaderLocks, runAsLeader } from '../db/leader-lock.ts';
import { describeError } from '../lib/error-text.ts';
import type { Position, RecordedEvent } from '../events/envelope.ts';
import type { EventStore } from '../events/store/port.ts';
import type { ChangeFeed } from './changes.ts';
import { advanceLiveCheckpoint, loadLiveState } from './checkpoints.ts';
import { projectionMetrics } from './metrics.ts';
import { type Projection, tablesOf } from './projection.ts';

export interface ProjectionRunnerOptions {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  /** This process's leader locks (one connection for every loop). */
  readonly locks: LeaderLocks;
  readonly projections: readonly Projection[];
  readonly logger: Logger;
  readonly registry?: Registry;
  readonly batchSize?: number;
  /** How often a failed projection looks whether a rebuild has put it right. */
  readonly failedRecheckMs?: number;
  /** Where each committed batch's changes are announced (decision 022). */
  readonly changes?: ChangeFeed;
}

export interface ProjectionRunner {
  /** True while this process is the active runner of that projection. */
  isLeader(name: string): boolean;
  stop(): Promise<void>;
}

/** An event that a projection could not apply: the projection stops on it. */
export class ProjectionFailure extends Error {
  readonly event: RecordedEvent;
  constructor(event: RecordedEvent, cause: unknown) {
    super(`projection failed on event ${event.id} (${event.type})`, { cause });
    this.name = 'ProjectionFailure';
    this.event = event;
  }
}

/** A batch the projection refused, for a reason other than losing the database. */
class BatchRefused extends Error {
  constructor(cause: unknown) {
    super('the projection refused a batch', { cause });
    this.name = 'BatchRefused';
  }
}

// Losing the database for a moment is not the projection's fault: wait and try again rather than stop.
const transientNames = new Set([
  'ConnectionError',
  'BackendTerminatedError',
  'BackendTerminatedUnexpectedlyError',
  'StatementTimeoutError',
  'IdleTransactionTimeoutError',
  'UnexpectedForeignConnectionError',
]);
function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (transientNames.has(error.name)) return true;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('08') || code === '57P01' || code === 'ECONNREFUSED');
}

/** Events per batch: large enough that catching up is bound by the database, not by round trips. */
export const DEFAULT_BATCH_SIZE = 1_000;

type BatchOutcome = { kind: 'applied'; position: Position; scopes: readonly string[] } | { kind: 'reload' };

/**
 * One loop per projection: become its single active runner (advisory lock), then read batches after
 * the checkpoint and apply each batch and move the checkpoint in ONE transaction (decision 008).
 */
export function startProjectionRunner(options: ProjectionRunnerOptions): ProjectionRunner {
  const { pool, store, logger } = options;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const controller = new AbortController();
  const leaders = new Set<string>();
  const metrics = options.registry
    ? projectionMetrics({ ...options, registry: options.registry })
    : undefined;

  async function applyBatch(
    projection: Projection,
    generation: number,
    from: Position | null,
    batch: readonly RecordedEvent[],
  ): Promise<BatchOutcome> {
    const last = batch.at(-1);
    if (!last) return { kind: 'applied', position: from ?? { commit: 0n, prepare: 0n }, scopes: [] };
    const tables = tablesOf(projection, generation);
    return pool.transaction(async (tx) => {
      const move = { name: projection.name, generation, from, to: last.position, applied: batch.length };
      if (!(await advanceLiveCheckpoint(tx, move))) return { kind: 'reload' };
      let scopes: readonly string[];
      try {
        await projection.apply(tx, batch, tables);
        scopes = (await projection.changes?.(tx, batch, tables)) ?? [];
      } catch (error) {
        throw isTransient(error) ? error : new BatchRefused(error);
      }
      return { kind: 'applied', position: last.position, scopes };
    });
  }

  async function markFailed(projection: Projection, failure: ProjectionFailure): Promise<void> {
    const reason = describeError(failure.cause);
    logger.error(
      { projection: projection.name, eventId: failure.event.id, eventType: failure.event.type, reason },
      'projection stopped on an event it cannot apply',
    );
    await pool.query(sql.unsafe`
      UPDATE projections SET status = 'failed', failed_event_id = ${failure.event.id},
        failed_event_type = ${failure.event.type}, error = ${reason}, failed_at = now()
      WHERE name = ${projection.name}`);
  }

  /** Follows the log while this process leads; returns to reload the state (or when leadership ends). */
  async function follow(projection: Projection, signal: AbortSignal): Promise<void> {
    const live = await loadLiveState(pool, projection);
    if (live.version !== projection.version) {
      logger.warn(
        { projection: projection.name, tables: live.version, code: projection.version },
        'projection: the live tables were built by another version; run `projections rebuild`',
      );
    }
    if (live.status === 'failed') {
      await sleep(options.failedRecheckMs ?? 5_000, signal);
      return;
    }
    let position = live.position;
    // A (re)load may follow a rebuild's switch or a reset: nothing cached from before can be trusted.
    options.changes?.announce(projection.name, position, null);
    const subscription = store.subscribe({
      after: position,
      categories: projection.categories,
      batchSize,
      signal,
      ...(projection.gatherMs === undefined ? {} : { gatherMs: projection.gatherMs }),
      ...(projection.unopened === undefined ? {} : { unopened: projection.unopened }),
    });
    for await (const batch of subscription) {
      const outcome = await applyOrFindCulprit(projection, live.generation, position, batch);
      if (outcome.kind === 'reload') return;
      if (outcome.kind === 'failed') {
        await markFailed(projection, outcome.failure);
        return;
      }
      position = outcome.position;
    }
  }

  /**
   * Applies a batch; when the projection refuses it, applies the same events one at a time, so that
   * every event before the bad one lands and the bad one is named (and never skipped).
   */
  async function applyOrFindCulprit(
    projection: Projection,
    generation: number,
    from: Position | null,
    batch: readonly RecordedEvent[],
  ): Promise<BatchOutcome | { kind: 'failed'; failure: ProjectionFailure }> {
    const batches = [batch];
    let position = from;
    for (let next = batches.shift(); next; next = batches.shift()) {
      let outcome: BatchOutcome;
      try {
        outcome = await applyBatch(projection, generation, position, next);
      } catch (error) {
        if (!(error instanceof BatchRefused)) throw error;
        const [only] = next;
        if (next.length === 1 && only)
          return { kind: 'failed', failure: new ProjectionFailure(only, error.cause) };
        batches.unshift(...next.map((event) => [event]));
        continue;
      }
      if (outcome.kind === 'reload') return outcome;
      position = outcome.position;
      metrics?.applied.inc({ projection: projection.name }, next.length);
      options.changes?.announce(projection.name, position, outcome.scopes);
    }
    return { kind: 'applied', position: position ?? { commit: 0n, prepare: 0n }, scopes: [] };
  }

  const run = (projection: Projection) =>
    runAsLeader(
      {
        locks: options.locks,
        key: `projection:${projection.name}`,
        logger,
        kind: 'projection',
        name: projection.name,
        onLeadership: (leading) => {
          if (leading) leaders.add(projection.name);
          else leaders.delete(projection.name);
        },
      },
      controller.signal,
      (leading) => follow(projection, leading),
    );

  const loops = options.projections.map((p) => run(p));

  return {
    isLeader: (name) => leaders.has(name),
    async stop() {
      controller.abort();
      await awaitStop(Promise.allSettled(loops), logger, 'the projection runner');
      metrics?.unregister();
    },
  };
}
