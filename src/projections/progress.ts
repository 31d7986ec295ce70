import type { EventEmitter } from 'node:events';
import type { DatabasePool } from 'slonik';
import { type Position, reached } from '../events/envelope.ts';
import { createCheckpointReads } from './checkpoint-reads.ts';

/** The projection runner of this process, when it runs one: what it leads, and its progress after each batch. */
export interface LocalRunner {
  readonly events: EventEmitter<{ progress: [string, Position] }>;
  isLeader(name: string): boolean;
}

export interface ProjectionWaiter {
  /**
   * Resolves true once every named projection has applied the event at `position`, false after
   * `timeoutMs` or as soon as one of them has failed. Never throws for lateness: read-your-writes is a
   * courtesy to the client, not a condition of the command.
   */
  waitFor(names: readonly string[], position: Position | null, timeoutMs?: number): Promise<boolean>;
}

/** How long a waiter sleeps before it looks at the checkpoints again, absent any progress event. */
const RECHECK_MS = 20;
export const READ_YOUR_WRITES_TIMEOUT_MS = 2_000;

/**
 * Checkpoints are read from the database, so it works whichever replica runs the projection; the local
 * runner's progress events cut the wait short, and while this process runs every projection waited for,
 * they stand in for the reads until the runner falls quiet. Waiters share their reads
 * (`CheckpointReads`), so many requests waiting at once cost one query per round, not one each.
 */
export function createProjectionWaiter(pool: DatabasePool, runner?: LocalRunner): ProjectionWaiter {
  const progress = runner?.events;
  const reads = createCheckpointReads(pool);
  // Where this process's runner has taken each projection it leads: enough to answer most waits with no
  // query at all, since a projection's progress is emitted only after its batch committed.
  const local = new Map<string, Position>();
  progress?.on('progress', (name, at) => {
    local.set(name, at);
  });
  const reachedHere = (names: readonly string[], position: Position) =>
    names.every((n) => reached(local.get(n) ?? null, position));
  const leadsAll = (names: readonly string[]) => names.every((n) => runner?.isLeader(n) ?? false);
  return {
    async waitFor(names, position, timeoutMs = READ_YOUR_WRITES_TIMEOUT_MS) {
      if (position === null || names.length === 0) return true;
      const deadline = Date.now() + timeoutMs;
      // While this process runs every named projection, the write is in one of its coming batches, and a
      // read would only say "not yet": it waits for their progress, and reads after a quiet interval.
      let read = !leadsAll(names);
      for (;;) {
        if (reachedHere(names, position)) return true;
        if (read) {
          const views = await reads.fresh();
          if (names.some((n) => views.get(n)?.status === 'failed')) return false;
          const done = names.every((n) => reached(views.get(n)?.position ?? null, position));
          if (done) return true;
        }
        const left = deadline - Date.now();
        if (left <= 0) return false;
        const woke = await new Promise<'progress' | 'quiet'>((resume) => {
          const finish = (why: 'progress' | 'quiet') => () => {
            clearTimeout(timer);
            progress?.off('progress', onProgress);
            resume(why);
          };
          const onProgress = finish('progress');
          const timer = setTimeout(finish('quiet'), Math.min(RECHECK_MS, left));
          progress?.on('progress', onProgress);
        });
        read = woke === 'quiet' || !leadsAll(names);
      }
    },
  };
}
