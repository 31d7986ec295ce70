import { z } from 'zod';
import type { DomainEvent, EventCodec } from './codec.ts';
import { erasable } from './personal-data.ts';
import { type RecordedEvent, streamName } from './envelope.ts';

/** One stream per comment: `comment-<commentId>`. Its whole life, moderation included, is in it. */
export const COMMENTS_CATEGORY = 'comment';
export const commentStream = (commentId: string): string => streamName(COMMENTS_CATEGORY, commentId);
export const commentOfStream = (stream: string): string => stream.slice(COMMENTS_CATEGORY.length + 1);

export const commentStatusSchema = z.enum(['visible', 'hidden', 'deleted']);
export type CommentStatus = z.infer<typeof commentStatusSchema>;
export const reportReasonSchema = z.enum(['spam', 'abuse', 'scam', 'other']);
export const reportActionSchema = z.enum(['dismiss', 'hide', 'delete']);

const instant = z.iso.datetime();
/** Who moderated: a client moderator of the channel (a user id) or an admin (an admin id). */
export const moderatorSchema = z.object({ type: z.enum(['moderator', 'admin']), id: z.string().min(1) });
export type ModeratorRef = z.infer<typeof moderatorSchema>;
const reason = z.string().max(500);

export const commentImageSchema = z.object({
  storageKey: z.string().min(1),
  contentType: z.string(),
  size: z.number().int().positive(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
});
export type CommentImage = z.infer<typeof commentImageSchema>;

export const commentPosted = z.object({
  type: z.literal('commentPosted'),
  data: z.object({
    channelId: z.uuid(),
    postId: z.uuid(),
    authorId: z.string().min(1),
    /** Null once the author was erased (decision 048). */
    text: erasable(z.string()),
    image: commentImageSchema.optional(),
    at: instant,
  }),
});
export type CommentPostedData = z.infer<typeof commentPosted>['data'];

// Deletions say what they ended, so projections that count visible comments need no lookup.
const ended = { previousStatus: z.enum(['visible', 'hidden']) };
export const commentDeletedByAuthor = z.object({
  type: z.literal('commentDeletedByAuthor'),
  data: z.object({ ...ended, at: instant }),
});
export const commentHidden = z.object({
  type: z.literal('commentHidden'),
  data: z.object({ by: moderatorSchema, reason: reason.optional(), at: instant }),
});
export const commentUnhidden = z.object({
  type: z.literal('commentUnhidden'),
  data: z.object({ by: moderatorSchema, at: instant }),
});
export const commentDeleted = z.object({
  type: z.literal('commentDeleted'),
  data: z.object({ by: moderatorSchema, reason: reason.optional(), ...ended, at: instant }),
});
export const commentReported = z.object({
  type: z.literal('commentReported'),
  data: z.object({
    reportId: z.uuid(),
    reporterId: z.string().min(1),
    reason: reportReasonSchema,
    note: erasable(z.string().max(500)).optional(),
    at: instant,
  }),
});
/**
 * Hidden by a rule, not a person. The rule and the threshold in force are recorded, so a replay reaches
 * the same state after the channel's setting has changed.
 */
export const commentAutoHidden = z.object({
  type: z.literal('commentAutoHidden'),
  data: z.object({
    rule: z.literal('distinct_reports'),
    threshold: z.number().int().positive(),
    reports: z.number().int().positive(),
    at: instant,
  }),
});
export const reportsResolved = z.object({
  type: z.literal('reportsResolved'),
  data: z.object({
    reportIds: z.array(z.uuid()).min(1),
    action: reportActionSchema,
    by: moderatorSchema,
    at: instant,
  }),
});

export const commentEventSchema = z.discriminatedUnion('type', [
  commentPosted,
  commentDeletedByAuthor,
  commentHidden,
  commentUnhidden,
  commentDeleted,
  commentReported,
  commentAutoHidden,
  reportsResolved,
]);
export type CommentEvent = z.infer<typeof commentEventSchema> & DomainEvent;

export const commentCodec: EventCodec<CommentEvent> = {
  parse: (recorded: RecordedEvent) => commentEventSchema.parse({ type: recorded.type, data: recorded.data }),
  schemaVersion: () => 1,
};
