import { type DatabasePool, sql } from 'slonik';
import { z } from 'zod';
import type { Position } from '../events/envelope.ts';
import { toPosition } from '../events/envelope.ts';

/** Where a projection's live generation stands, as one read of the checkpoints saw it. */
export interface CheckpointView {
  readonly status: string;
  /** The live generation (a rebuild's switch moves it). */
  readonly generation: number;
  readonly position: Position | null;
  /** Changes whenever the projection's live tables may have changed (see `ReadVersions`). */
  readonly version: string;
}

export interface CheckpointReads {
  /**
   * Every projection's checkpoint, from a read that started after this call: so a caller never sees a
   * checkpoint older than the moment it asked, whichever replica moved it.
   */
  fresh(): Promise<ReadonlyMap<string, CheckpointView>>;
}

const row = z.object({
  name: z.string(),
  status: z.string(),
  active_generation: z.number(),
  commit_position: z.coerce.bigint().nullable(),
  prepare_position: z.coerce.bigint().nullable(),
  version: z.string(),
});

/**
 * Reads of the projections' checkpoints shared by everyone who waits at once: while one read is in
 * flight, every caller who arrives waits for the next one, which starts as soon as the first returns.
 * Under load that is one small query per database round trip, however many requests wait on projections
 * (read-your-writes) or key caches on them.
 */
export function createCheckpointReads(pool: DatabasePool): CheckpointReads {
  type Views = ReadonlyMap<string, CheckpointView>;
  let inFlight: Promise<Views> | null = null;
  let queued: Promise<Views> | null = null;

  const read = async (): Promise<Views> => {
    // The generation covers a rebuild's switch; `updated_at` a development reset, after which positions
    // start again from one.
    // Prepared: it runs once per database round trip under load, so planning it each time would show.
    const rows = await pool.any(sql.prepared('projection_checkpoint_views', row)`
      SELECT p.name, p.status, p.active_generation, c.commit_position, c.prepare_position,
        concat_ws(':', p.active_generation, c.commit_position, c.prepare_position,
          extract(epoch FROM c.updated_at)) AS version
      FROM projections p
      LEFT JOIN projection_checkpoints c ON c.name = p.name AND c.generation = p.active_generation`);
    return new Map(
      rows.map((r) => [
        r.name,
        { status: r.status, generation: r.active_generation, position: toPosition(r), version: r.version },
      ]),
    );
  };

  const start = (): Promise<Views> => {
    const current = read().finally(() => {
      inFlight = null;
    });
    inFlight = current;
    return current;
  };

  return {
    fresh() {
      if (inFlight === null) return start();
      // The read in flight may have started before this caller's change was committed: wait for a new one.
      queued ??= inFlight
        .catch(() => undefined)
        .then(() => {
          queued = null;
          return inFlight ?? start();
        });
      return queued;
    },
  };
}
