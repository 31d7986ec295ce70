import type { DatabasePool } from 'slonik';
import { type CheckpointReads, createCheckpointReads } from './checkpoint-reads.ts';

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

/**
 * Caches keyed by these tokens stay correct across replicas without a bus: a projection moves its
 * checkpoint in the same transaction as its tables (decision 008), so an unchanged checkpoint means
 * unchanged tables. Concurrent callers share reads (`CheckpointReads`).
 */
export function createReadVersions(source: DatabasePool | CheckpointReads): ReadVersions {
  const reads = 'fresh' in source ? source : createCheckpointReads(source);
  return {
    async fresh() {
      const views = await reads.fresh();
      return { of: (...names) => names.map((n) => views.get(n)?.version ?? '-').join('|') };
    },
  };
}
