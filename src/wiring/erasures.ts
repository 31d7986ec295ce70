import type { Logger } from 'pino';
import { eraseContact } from '../chat/erase-contact.ts';
import type { LeaderLocks } from '../db/leader-lock.ts';
import type { Notifications } from '../db/notifications.ts';
import type { DatabasePool } from '../db/pool.ts';
import { eraseUserFiles } from '../files/erasure.ts';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import { type ErasurePorts, startErasureJob } from '../jobs/erasures.ts';
import { devicesProjection } from '../projections/devices.ts';
import { erasePushData } from '../push/erasure.ts';
import { DATA_KEY_ERASED, type EventSourcing } from './event-sourcing.ts';
import type { PushServices } from './push.ts';
import type { SupportServices } from './support.ts';

export interface ErasureWiring {
  readonly pool: DatabasePool;
  readonly eventSourcing: Pick<EventSourcing, 'store' | 'keys' | 'waiter'>;
  readonly notifications: Pick<Notifications, 'notify'>;
  readonly push: Pick<PushServices, 'queue'>;
  readonly support: Pick<SupportServices, 'intercom' | 'contacts' | 'reads' | 'cache'>;
  readonly storage: ObjectStorage;
}

/** The erasure job's ports on the service's parts (decision 048). */
export function erasurePorts(w: ErasureWiring): ErasurePorts {
  const { pool, eventSourcing } = w;
  return {
    pool,
    store: eventSourcing.store,
    async eraseKey(userId) {
      const keyId = await eventSourcing.keys.erase(userId);
      // The other processes drop it from their caches; one that misses this forgets every key on reconnect.
      if (keyId !== null) await w.notifications.notify(DATA_KEY_ERASED, keyId);
    },
    erasePush: async (userId, tokens) => {
      await erasePushData({ pool, boss: w.push.queue }, { userId, tokens });
    },
    eraseContact: async (userId) => {
      await eraseContact({ pool, ...w.support }, userId);
    },
    eraseFiles: async (userId) => {
      await eraseUserFiles({ pool, storage: w.storage }, userId);
    },
    devicesApplied: (position) => eventSourcing.waiter.waitFor([devicesProjection.name], position, 30_000),
  };
}

/** The erasure job, on the replica holding its lock. */
export function startErasures(w: ErasureWiring & { readonly locks: LeaderLocks; readonly logger: Logger }) {
  return startErasureJob({ ...erasurePorts(w), locks: w.locks, logger: w.logger });
}
