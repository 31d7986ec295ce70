import { z } from 'zod';

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
