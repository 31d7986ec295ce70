import { type DatabasePool, sql } from 'slonik';
import { z } from 'zod';

export interface ReadVersions {
  /**
   * The projections' versions, from a read of the checkpoints that started after this call: so a
   * caller never sees a version older than the moment it asked, whichever replica applied the change.
   */
  fresh(): Promise<Versions>;
}

export interface Versions {
  /** A token that changes whenever any of the named projections has changed its tables. */
  of(...names: readonly string[]): string;
}

const row = z.object({ name: z.string(), version: z.string() });

/**
 * Caches keyed by this token stay correct across replicas without a bus: a projection moves its
 * checkpoint in the same transaction as its tables (decision 008), so an unchanged checkpoint means
 * unchanged tables. The generation covers a rebuild's switch; `updated_at` covers a development reset,
 * after which positions start again from one.
 *
 * Concurrent callers share reads: while one read is in flight, everyone who arrives waits for the next
 * one, which starts as soon as the first returns. Under load that is one small query per round trip,
 * whatever the number of requests.
 */
export function createReadVersions(pool: DatabasePool): ReadVersions {
  let inFlight: Promise<ReadonlyMap<string, string>> | null = null;
  let queued: Promise<ReadonlyMap<string, string>> | null = null;

  const read = async (): Promise<ReadonlyMap<string, string>> => {
    const rows = await pool.any(sql.type(row)`
      SELECT p.name, concat_ws(':', p.active_generation, c.commit_position, c.prepare_position,
        extract(epoch FROM c.updated_at)) AS version
      FROM projections p
      LEFT JOIN projection_checkpoints c ON c.name = p.name AND c.generation = p.active_generation`);
    return new Map(rows.map((r) => [r.name, r.version]));
  };

  const start = (): Promise<ReadonlyMap<string, string>> => {
    const current = read().finally(() => {
      inFlight = null;
    });
    inFlight = current;
    return current;
  };

  const next = (): Promise<ReadonlyMap<string, string>> => {
    if (inFlight === null) return start();
    // The read in flight may have started before this caller's change was committed: wait for a new one.
    queued ??= inFlight
      .catch(() => undefined)
      .then(() => {
        queued = null;
        return inFlight ?? start();
      });
    return queued;
  };

  return {
    async fresh() {
      const versions = await next();
      return { of: (...names) => names.map((n) => versions.get(n) ?? '-').join('|') };
    },
  };
}
