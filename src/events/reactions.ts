import { z } from 'zod';
import type { DomainEvent, EventCodec } from './codec.ts';
import { type RecordedEvent, streamName } from './envelope.ts';

/**
 * One stream per user for their reactions on posts: `userReactions-<userId>`. Reactions are frequent
 * small writes; keeping them off the post's own stream means they never contend with the post's admins.
 */
export const REACTIONS_CATEGORY = 'userReactions';
export const reactionsStream = (userId: string): string => streamName(REACTIONS_CATEGORY, userId);
export const userOfReactionsStream = (stream: string): string => stream.slice(REACTIONS_CATEGORY.length + 1);

const reaction = z.object({
  channelId: z.uuid(),
  postId: z.uuid(),
  emoji: z.string().min(1).max(32),
  at: z.iso.datetime(),
});

export const reactionAdded = z.object({ type: z.literal('reactionAdded'), data: reaction });
export const reactionRemoved = z.object({ type: z.literal('reactionRemoved'), data: reaction });

export const reactionEventSchema = z.discriminatedUnion('type', [reactionAdded, reactionRemoved]);
export type ReactionEvent = z.infer<typeof reactionEventSchema> & DomainEvent;

export const reactionCodec: EventCodec<ReactionEvent> = {
  parse: (recorded: RecordedEvent) => reactionEventSchema.parse({ type: recorded.type, data: recorded.data }),
  schemaVersion: () => 1,
};
