import type { DatabasePool } from 'slonik';
import { type Position, reached } from '../events/envelope.ts';
import type { ReadChanges } from './changes.ts';
import { createCheckpointReads } from './checkpoint-reads.ts';

export interface ProjectionWaiter {
  /**
   * Resolves true once every named projection has applied the event at `position`, false after
   * `timeoutMs` or as soon as one of them has failed. Never throws for lateness: read-your-writes is a
   * courtesy to the client, not a condition of the command.
   */
  waitFor(names: readonly string[], position: Position | null, timeoutMs?: number): Promise<boolean>;
}

/** How long a waiter sleeps before it looks at the checkpoints, absent any news (without notifications). */
const RECHECK_MS = 20;
/** The same while notifications are heard: the checkpoints then only tell a failed projection. */
const FAILURE_RECHECK_MS = 250;
export const READ_YOUR_WRITES_TIMEOUT_MS = 2_000;

/**
 * Done when the change feed has heard every named projection pass the position: from this process's
 * runner at once, from another replica's through its notification. Hearing it (rather than reading a
 * checkpoint) means the caches keyed on the feed have moved too, so the caller's next read shows the
 * write. Without notifications it reads the checkpoints instead; waiters share those reads
 * (`CheckpointReads`), so many requests waiting at once cost one query per round, not one each.
 */
export function createProjectionWaiter(pool: DatabasePool, changes: ReadChanges): ProjectionWaiter {
  const reads = createCheckpointReads(pool);
  const heardAll = (names: readonly string[], position: Position) =>
    names.every((n) => reached(changes.heard(n), position));
  return {
    async waitFor(names, position, timeoutMs = READ_YOUR_WRITES_TIMEOUT_MS) {
      if (position === null || names.length === 0) return true;
      const deadline = Date.now() + timeoutMs;
      // While notifications are heard, the first look at the checkpoints (for a failure) can wait.
      let readAt = changes.listening() ? Date.now() : 0;
      for (;;) {
        if (heardAll(names, position)) return true;
        const listening = changes.listening();
        if (Date.now() - readAt >= (listening ? FAILURE_RECHECK_MS : RECHECK_MS)) {
          readAt = Date.now();
          const views = await reads.fresh();
          if (names.some((n) => views.get(n)?.status === 'failed')) return false;
          const done = names.every((n) => reached(views.get(n)?.position ?? null, position));
          if (done && !listening) return true;
        }
        const left = deadline - Date.now();
        if (left <= 0) return false;
        await new Promise<void>((resume) => {
          const finish = () => {
            clearTimeout(timer);
            changes.events.off('heard', finish);
            resume();
          };
          const timer = setTimeout(finish, Math.min(listening ? FAILURE_RECHECK_MS : RECHECK_MS, left));
          changes.events.on('heard', finish);
        });
      }
    },
  };
}
