import { z } from 'zod';
import type { DomainEvent, EventCodec } from './codec.ts';
import { erasable } from './personal-data.ts';
import { moderatorSchema } from './comments.ts';
import { type RecordedEvent, streamName } from './envelope.ts';

/**
 * One stream per channel for its comment moderation: bans, comment moderators and rejected comments,
 * `channelModeration-<channelId>`.
 */
export const MODERATION_CATEGORY = 'channelModeration';
export const moderationStream = (channelId: string): string => streamName(MODERATION_CATEGORY, channelId);
export const channelOfModerationStream = (stream: string): string =>
  stream.slice(MODERATION_CATEGORY.length + 1);

const instant = z.iso.datetime();
const userId = z.string().min(1).max(256);

export const userBanned = z.object({
  type: z.literal('userBanned'),
  // `until` null: until lifted. A timed ban ends by itself at `until`; no event marks that.
  data: z.object({
    userId,
    until: instant.nullable(),
    reason: erasable(z.string().min(1).max(500)),
    by: moderatorSchema,
    at: instant,
  }),
});
export const banLifted = z.object({
  type: z.literal('banLifted'),
  data: z.object({ userId, by: moderatorSchema, at: instant }),
});
export const moderatorAssigned = z.object({
  type: z.literal('moderatorAssigned'),
  data: z.object({ userId, by: moderatorSchema, at: instant }),
});
export const moderatorRevoked = z.object({
  type: z.literal('moderatorRevoked'),
  data: z.object({ userId, by: moderatorSchema, at: instant }),
});

export const rejectionKindSchema = z.enum([
  'link',
  'seed_phrase',
  'card_number',
  'private_key',
  'api_key',
  'password',
]);
/** A comment refused by the content rules: what rule, a redacted snippet and a keyed hash, never the text. */
export const commentRejected = z.object({
  type: z.literal('commentRejected'),
  data: z.object({
    postId: z.uuid(),
    userId,
    kind: rejectionKindSchema,
    snippet: erasable(z.string().max(200)),
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    at: instant,
  }),
});
export type CommentRejected = z.infer<typeof commentRejected>;

export const moderationEventSchema = z.discriminatedUnion('type', [
  userBanned,
  banLifted,
  moderatorAssigned,
  moderatorRevoked,
  commentRejected,
]);
export type ModerationEvent = z.infer<typeof moderationEventSchema> & DomainEvent;

export const moderationCodec: EventCodec<ModerationEvent> = {
  parse: (recorded: RecordedEvent) =>
    moderationEventSchema.parse({ type: recorded.type, data: recorded.data }),
  schemaVersion: () => 1,
};
