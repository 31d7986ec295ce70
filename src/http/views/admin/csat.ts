import { z } from 'zod';
import { csatScoreSchema, csatTargetTypeSchema } from '../../../events/csat.ts';

export const adminCsatRatingSchema = z
  .object({
    id: z.uuid(),
    userId: z.string().nullable().describe('null once the user was erased'),
    targetType: csatTargetTypeSchema,
    targetId: z.string(),
    rating: csatScoreSchema,
    comment: z.string().nullable().describe('null without one, or once the user was erased'),
    ratedAt: z.iso.datetime(),
  })
  .meta({ id: 'AdminCsatRating' });

const count = z.number().int().min(0);

export const adminCsatListSchema = z
  .object({
    items: z.array(adminCsatRatingSchema),
    nextCursor: z.string().nullable(),
    from: z.iso.datetime(),
    to: z.iso.datetime(),
    /** Over the whole filter, not the page. */
    count,
    /** The mean rating; null with none in the filter. */
    average: z.number().nullable(),
    /** How many ratings of each star. */
    distribution: z.object({ 1: count, 2: count, 3: count, 4: count, 5: count }),
  })
  .meta({ id: 'AdminCsatList' });
