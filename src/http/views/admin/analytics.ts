import { z } from 'zod';

/** The period an answer covers, as the service read it: `from` inclusive, `to` exclusive. */
const period = { from: z.iso.datetime(), to: z.iso.datetime() };
/** A UTC calendar day, `YYYY-MM-DD`. */
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const conversationAnalyticsSchema = z
  .object({
    ...period,
    /** Conversations closed in the period. */
    count: z.number().int().min(0),
    /** Interpolated percentiles of their durations (open to close); null with none closed. */
    medianSeconds: z.number().nullable(),
    p90Seconds: z.number().nullable(),
    /** Every UTC day the period touches, oldest first; a day without a close has count 0. */
    series: z.array(z.object({ day, count: z.number().int().min(0), medianSeconds: z.number().nullable() })),
  })
  .meta({ id: 'ConversationAnalytics' });

export const csatAnalyticsSchema = z
  .object({
    ...period,
    count: z.number().int().min(0),
    /** The mean rating; null with none in the period. */
    average: z.number().nullable(),
    /** Every UTC day the period touches, oldest first; a day without a rating has count 0. */
    series: z.array(z.object({ day, count: z.number().int().min(0), average: z.number().nullable() })),
  })
  .meta({ id: 'CsatAnalytics' });
