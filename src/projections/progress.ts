import type { EventEmitter } from 'node:events';
import { type DatabasePool, sql } from 'slonik';
import { z } from 'zod';
import { type Position, reached } from '../events/envelope.ts';
import { toPosition } from './checkpoints.ts';

export interface ProjectionWaiter {
  /**
   * Resolves true once every named projection has applied the event at `position`, false after
   * `timeoutMs` or as soon as one of them has failed. Never throws for lateness: read-your-writes is a
   * courtesy to the client, not a condition of the command.
   */
  waitFor(names: readonly string[], position: Position | null, timeoutMs?: number): Promise<boolean>;
}

const checkpointRow = z.object({
  name: z.string(),
  status: z.string(),
  commit_position: z.coerce.bigint().nullable(),
  prepare_position: z.coerce.bigint().nullable(),
});

const POLL_MS = 20;
export const READ_YOUR_WRITES_TIMEOUT_MS = 2_000;

/**
 * Checkpoints are read from the database, so it works whichever replica runs the projection; the local
 * runner's progress events only cut the wait short.
 */
export function createProjectionWaiter(
  pool: DatabasePool,
  progress?: EventEmitter<{ progress: [string, Position] }>,
): ProjectionWaiter {
  return {
    async waitFor(names, position, timeoutMs = READ_YOUR_WRITES_TIMEOUT_MS) {
      if (position === null || names.length === 0) return true;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const rows = await pool.any(sql.type(checkpointRow)`
          SELECT p.name, p.status, c.commit_position, c.prepare_position
          FROM projections p
          JOIN projection_checkpoints c ON c.name = p.name AND c.generation = p.active_generation
          WHERE p.name = ANY (${sql.array([...names], 'text')})`);
        if (rows.some((r) => r.status === 'failed')) return false;
        const done = names.every((n) => {
          const row = rows.find((r) => r.name === n);
          return row !== undefined && reached(toPosition(row), position);
        });
        if (done) return true;
        const left = deadline - Date.now();
        if (left <= 0) return false;
        await new Promise<void>((resume) => {
          const finish = () => {
            clearTimeout(timer);
            progress?.off('progress', finish);
            resume();
          };
          const timer = setTimeout(finish, Math.min(POLL_MS, left));
          progress?.on('progress', finish);
        });
      }
    },
  };
}
