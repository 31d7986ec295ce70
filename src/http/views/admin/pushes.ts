import { z } from 'zod';
import type { DatabasePool } from '../../../db/pool.ts';
import { deliveryCounts, sourceState } from '../../../push/push-log.ts';

/** How far a push to many has got: its fan-out, and its devices by outcome. */
export const pushProgressSchema = z
  .object({
    state: z
      .enum(['waiting', 'fanning_out', 'done'])
      .describe('`waiting` for the queue, `fanning_out` while devices are being queued, then `done`'),
    devices: z
      .object({
        queued: z.number().int(),
        sent: z.number().int(),
        failed: z.number().int(),
        refused: z.number().int(),
        removed: z.number().int(),
        muted: z.number().int(),
        online: z.number().int(),
        notConfigured: z.number().int(),
      })
      .describe('devices by outcome; `queued` ones are still to be sent'),
  })
  .meta({ id: 'PushProgress' });
export type PushProgress = z.infer<typeof pushProgressSchema>;

/** A source's progress; `waiting` until its fan-out has started. */
export async function pushProgress(pool: DatabasePool, sourceId: string): Promise<PushProgress> {
  const state = await sourceState(pool, sourceId);
  const counts = await deliveryCounts(pool, sourceId);
  return {
    state: state === null ? 'waiting' : state.fannedOut ? 'done' : 'fanning_out',
    devices: {
      queued: counts.queued,
      sent: counts.sent,
      failed: counts.failed,
      refused: counts.refused,
      removed: counts.removed,
      muted: counts.muted,
      online: counts.online,
      notConfigured: counts.not_configured,
    },
  };
}
