import { z } from 'zod';
import { csatScoreSchema, csatTargetTypeSchema } from '../../../events/csat.ts';

/** API.md "CSAT": what a rating answers (never the comment: the client sent it). */
export const csatRatingSchema = z
  .object({
    id: z.uuid(),
    targetType: csatTargetTypeSchema,
    targetId: z.string(),
    rating: csatScoreSchema,
  })
  .meta({ id: 'CsatRating' });
