import type { Logger } from 'pino';
import { recordErasure } from '../commands/privacy.ts';
import { type LeaderLocks, runAsLeader } from '../db/leader-lock.ts';
import type { DatabasePool } from '../db/pool.ts';
import {
  dueErasures,
  type ErasureProgress,
  type ErasureStep,
  markAttemptFailed,
  markFinished,
  markStepDone,
} from '../db/user-erasures.ts';
import type { Position } from '../events/envelope.ts';
import type { EventStore } from '../events/store/port.ts';
import { awaitStop, sleep } from '../lib/abortable.ts';
import { describeError } from '../lib/error-text.ts';
import { devicesOfUser } from '../queries/devices.ts';

/** What an erasure acts through; each is idempotent, so a retried attempt repeats a step safely. */
export interface ErasurePorts {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  /** Deletes the user's data key, here and in every other process's cache. */
  readonly eraseKey: (userId: string) => Promise<void>;
  /** The push side: settings, push log, deliveries and queued jobs of the user or these tokens. */
  readonly erasePush: (userId: string, tokens: readonly string[]) => Promise<void>;
  /** The support side: the contact at the provider, then its mapping and read markers here. */
  readonly eraseContact: (userId: string) => Promise<void>;
  /** The user's uploads, in storage and their rows. */
  readonly eraseFiles: (userId: string) => Promise<void>;
  /** Resolves once the devices read table has applied the event at `position` (or gave up waiting). */
  readonly devicesApplied: (position: Position | null) => Promise<boolean>;
}

/**
 * Does what is left of one erasure, step by step, recording each (decision 048). Push data and files come
 * first, while the read tables still name the user's tokens and comment pictures; the key before the event,
 * so that no projection applying the event can still open the user's fields; after the event, once the
 * devices are gone from the read table, the push data is purged once more, for what a broadcast queued
 * meanwhile.
 */
export async function runErasure(ports: ErasurePorts, erasure: ErasureProgress): Promise<void> {
  const { userId, erasureId } = erasure;
  const tokens = (await devicesOfUser(ports.pool, userId)).map((d) => d.token);
  const steps: Record<ErasureStep, () => Promise<void>> = {
    push: () => ports.erasePush(userId, tokens),
    files: () => ports.eraseFiles(userId),
    key: () => ports.eraseKey(userId),
    events: async () => {
      const at = new Date().toISOString();
      const { position } = await recordErasure(
        ports.store,
        { userId, erasureId, at },
        { actor: { type: 'admin', id: erasure.requestedBy }, correlationId: erasureId },
      );
      // Until the devices are gone from the read table a broadcast may still queue to them: try again later.
      if (!(await ports.devicesApplied(position))) throw new DevicesNotYetForgotten();
      await ports.erasePush(userId, tokens);
    },
    contact: () => ports.eraseContact(userId),
  };
  for (const [step, run] of Object.entries(steps) as [ErasureStep, () => Promise<void>][]) {
    if (erasure.steps[step] !== undefined) continue;
    await run();
    await markStepDone(ports.pool, erasureId, step);
  }
  await markFinished(ports.pool, erasureId);
}

class DevicesNotYetForgotten extends Error {
  override name = 'DevicesNotYetForgotten';
}

/** Runs the due erasures once; an attempt that fails is retried later with a growing delay. */
export async function runDueErasures(ports: ErasurePorts, logger: Logger): Promise<number> {
  const due = await dueErasures(ports.pool, 10);
  for (const erasure of due) {
    try {
      await runErasure(ports, erasure);
      logger.info({ erasureId: erasure.erasureId }, 'user erased');
    } catch (error) {
      // The class of the failure only: a provider's message may quote what it was sent.
      const reason = error instanceof Error ? error.name : 'Error';
      await markAttemptFailed(ports.pool, erasure.erasureId, reason);
      logger.warn({ erasureId: erasure.erasureId, error: describeError(error) }, 'erasure attempt failed');
    }
  }
  return due.length;
}

export interface ErasureJobOptions extends ErasurePorts {
  readonly locks: LeaderLocks;
  readonly logger: Logger;
  /** How often due erasures are looked for (1 s by default). */
  readonly intervalMs?: number;
}

/** The erasure job: on the replica holding its lock, does the erasures asked for. */
export function startErasureJob(options: ErasureJobOptions): { stop(): Promise<void> } {
  const intervalMs = options.intervalMs ?? 1_000;
  const stopping = new AbortController();
  const loop = runAsLeader(
    { locks: options.locks, key: 'job:erasures', logger: options.logger, kind: 'job', name: 'erasures' },
    stopping.signal,
    async (leading) => {
      await runDueErasures(options, options.logger);
      await sleep(intervalMs, leading);
    },
  );
  return {
    stop: async () => {
      stopping.abort();
      await awaitStop(loop, options.logger, 'the erasure job');
    },
  };
}
