import { z } from 'zod';
import type { DomainEvent, EventCodec } from './codec.ts';
import { erasable } from './personal-data.ts';
import { type RecordedEvent, streamName } from './envelope.ts';

/**
 * One stream per rated support record: `csatRating-<targetType>:<targetId>` (decision 029). A target is
 * rated once, so the stream is the rule's boundary: two ratings of one target race on one revision.
 */
export const CSAT_CATEGORY = 'csatRating';

export const csatTargetTypeSchema = z.enum(['conversation', 'ticket']);
export type CsatTargetType = z.infer<typeof csatTargetTypeSchema>;

export interface CsatTarget {
  readonly type: CsatTargetType;
  readonly id: string;
}

export const csatStream = (target: CsatTarget): string =>
  streamName(CSAT_CATEGORY, `${target.type}:${target.id}`);

/** The star rating, 1 (worst) to 5. */
export const csatScoreSchema = z.number().int().min(1).max(5);

export const csatRated = z.object({
  type: z.literal('csatRated'),
  data: z.object({
    ratingId: z.uuid(),
    userId: z.string().min(1),
    targetType: csatTargetTypeSchema,
    targetId: z.string().min(1),
    rating: csatScoreSchema,
    /** The user's words; null without any, or once the user was erased. Never logged, never sent to the provider (decision 029). */
    comment: erasable(z.string().max(1000)),
    at: z.iso.datetime(),
  }),
});

export const csatEventSchema = z.discriminatedUnion('type', [csatRated]);
export type CsatEvent = z.infer<typeof csatEventSchema> & DomainEvent;

export const csatCodec: EventCodec<CsatEvent> = {
  parse: (recorded: RecordedEvent) => csatEventSchema.parse({ type: recorded.type, data: recorded.data }),
  schemaVersion: () => 1,
};
