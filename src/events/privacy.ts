import { z } from 'zod';
import type { DomainEvent, EventCodec } from './codec.ts';
import { type RecordedEvent, streamName } from './envelope.ts';

/**
 * One stream per user for what privacy law asks of the service: `userPrivacy-<userId>` (decision 048). An
 * erasure is an event, so a projection rebuilt later forgets the user again at the same place in the log.
 */
export const PRIVACY_CATEGORY = 'userPrivacy';
export const privacyStream = (userId: string): string => streamName(PRIVACY_CATEGORY, userId);

export const userErased = z.object({
  type: z.literal('userErased'),
  data: z.object({ userId: z.string().min(1), erasureId: z.uuid(), at: z.iso.datetime() }),
});

export const privacyEventSchema = z.discriminatedUnion('type', [userErased]);
export type PrivacyEvent = z.infer<typeof privacyEventSchema> & DomainEvent;

export const privacyCodec: EventCodec<PrivacyEvent> = {
  parse: (recorded: RecordedEvent) => privacyEventSchema.parse({ type: recorded.type, data: recorded.data }),
  schemaVersion: () => 1,
};

/** The users a batch erased, in the order they were erased. */
export const erasedUsers = (events: readonly RecordedEvent[]): string[] =>
  events.filter((e) => e.type === 'userErased').map((e) => privacyCodec.parse(e).data.userId);
