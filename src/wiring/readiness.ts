import type { LeaderLocks } from '../db/leader-lock.ts';
import type { Instances } from '../db/instances.ts';
import type { Notifications } from '../db/notifications.ts';
import { databaseAnswers, type DatabasePool } from '../db/pool.ts';
import type { EventStore } from '../events/store/port.ts';
import type { ReadinessCheck } from '../http/routes/health.ts';
import { failedProjections } from '../projections/status.ts';

export interface ReadinessParts {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  /** The projections this process runs: a failed one makes it not ready. */
  readonly projections: readonly string[];
  /** Present in a process with several peers to hear (the api role), and in every one that has it. */
  readonly notifications?: Notifications | undefined;
  /** This process's leader locks, when it runs the worker role. */
  readonly locks?: LeaderLocks | null | undefined;
  readonly instances?: Instances | undefined;
}

/** What /health/ready looks at in a process with these parts: each role brings its own checks. */
export function readinessChecks(parts: ReadinessParts): ReadinessCheck[] {
  const { notifications, locks, instances } = parts;
  const checks: ReadinessCheck[] = [
    {
      name: 'database',
      check: async () => ((await databaseAnswers(parts.pool)) ? null : 'the database is not reachable'),
    },
    {
      name: 'eventStore',
      check: async () => ((await parts.store.ping()) ? null : 'the event store is not reachable'),
    },
  ];
  if (parts.projections.length > 0) {
    checks.push({
      name: 'projections',
      // A projection no longer in the code keeps its row, but no longer decides readiness.
      check: async () => {
        const failed = await failedProjections(parts.pool, parts.projections);
        return failed.length === 0 ? null : failed.map((name) => `projection ${name} has failed`).join('; ');
      },
    });
  }
  if (notifications !== undefined) {
    checks.push({
      name: 'readChanges',
      check: () =>
        Promise.resolve(
          notifications.listening() ? null : "not hearing the other processes' changes (reconnecting)",
        ),
    });
  }
  if (locks) {
    checks.push({
      name: 'leaderLocks',
      check: () => Promise.resolve(locks.connected() ? null : 'the leader locks have no connection'),
    });
  }
  if (instances !== undefined) {
    checks.push({ name: 'sharedState', check: () => Promise.resolve(instances.split()) });
  }
  return checks;
}
