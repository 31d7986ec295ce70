import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { commentStatusSchema } from '../events/comments.ts';
import { csatTargetTypeSchema } from '../events/csat.ts';
import { isoInstant } from './iso-instant.ts';
import {
  bansOf,
  type BanHeld,
  type ModerationEventHeld,
  moderationHistoryOf,
  type ModeratorRoleHeld,
  moderatorRolesOf,
  type ReportHeld,
  reportsOf,
} from './privacy-moderation.ts';
import {
  type DeviceHeld,
  devicesOf,
  type NotificationSettingsHeld,
  notificationSettingsOf,
  type PushHeld,
  pushesOf,
} from './privacy-push.ts';
import {
  type Complaint,
  complaintsOf,
  type ConversationReadHeld,
  conversationReadsOf,
  type SupportContactHeld,
  supportContactOf,
  type TicketReadHeld,
  ticketReadsOf,
} from './privacy-support.ts';

// What the service holds about one user, read from the read tables (not the event log) for the export
// of GDPR art. 15 (decision 048). Columns an erasure empties are read as nullable. The push, support and
// moderation sections are read by privacy-push.ts, privacy-support.ts and privacy-moderation.ts.

export type { Complaint } from './privacy-support.ts';

const text = z.string().nullable();

const commentRow = z
  .object({
    id: z.string(),
    channel_id: z.string(),
    post_id: z.string(),
    text,
    status: commentStatusSchema,
    created_at: isoInstant,
    updated_at: isoInstant,
    image_type: text,
    image_size: z.coerce.number().nullable(),
  })
  .transform((r) => ({
    id: r.id,
    channelId: r.channel_id,
    postId: r.post_id,
    text: r.text,
    status: r.status,
    image:
      r.image_type === null || r.image_size === null
        ? null
        : { contentType: r.image_type, size: r.image_size },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));

const reactionRow = z
  .object({ post_id: z.string(), emoji: z.string(), reacted_at: isoInstant })
  .transform((r) => ({ postId: r.post_id, emoji: r.emoji, reactedAt: r.reacted_at }));

const viewRow = z
  .object({ post_id: z.string(), viewed_at: isoInstant })
  .transform((r) => ({ postId: r.post_id, viewedAt: r.viewed_at }));

const clickRow = z
  .object({ post_id: z.string(), button_id: z.string(), clicked_at: isoInstant })
  .transform((r) => ({ postId: r.post_id, buttonId: r.button_id, clickedAt: r.clicked_at }));

const readRow = z
  .object({
    channel_id: z.string(),
    last_read_post_id: z.string(),
    last_read_published_at: isoInstant,
    updated_at: isoInstant,
  })
  .transform((r) => ({
    channelId: r.channel_id,
    lastReadPostId: r.last_read_post_id,
    lastReadPublishedAt: r.last_read_published_at,
    updatedAt: r.updated_at,
  }));

const ratingRow = z
  .object({
    id: z.string(),
    target_type: csatTargetTypeSchema,
    target_id: z.string(),
    rating: z.number(),
    comment: text,
    rated_at: isoInstant,
  })
  .transform((r) => ({
    id: r.id,
    targetType: r.target_type,
    targetId: r.target_id,
    rating: r.rating,
    comment: r.comment,
    ratedAt: r.rated_at,
  }));

const fileRow = z
  .object({
    id: z.string(),
    original_name: text,
    content_type: z.string(),
    kind: z.string(),
    size: z.coerce.number(),
    created_at: isoInstant,
  })
  .transform((r) => ({
    id: r.id,
    name: r.original_name,
    contentType: r.content_type,
    kind: r.kind,
    size: r.size,
    createdAt: r.created_at,
  }));

type Rows<T extends z.ZodType> = readonly z.infer<T>[];

export interface HeldData {
  readonly devices: readonly DeviceHeld[];
  readonly notificationSettings: NotificationSettingsHeld | null;
  /** Pushes to the user, or to many and reaching a device of theirs, with their deliveries. */
  readonly pushes: readonly PushHeld[];
  readonly comments: Rows<typeof commentRow>;
  readonly reactions: Rows<typeof reactionRow>;
  readonly postViews: Rows<typeof viewRow>;
  readonly buttonClicks: Rows<typeof clickRow>;
  readonly channelReads: Rows<typeof readRow>;
  readonly reports: readonly ReportHeld[];
  readonly bans: readonly BanHeld[];
  readonly moderatorRoles: readonly ModeratorRoleHeld[];
  readonly moderationHistory: readonly ModerationEventHeld[];
  readonly csatRatings: Rows<typeof ratingRow>;
  readonly complaints: readonly Complaint[];
  readonly files: Rows<typeof fileRow>;
  /** The user's Intercom contact, once the support chat made or found one. */
  readonly supportContact: SupportContactHeld | null;
  readonly conversationReads: readonly ConversationReadHeld[];
  readonly ticketReads: readonly TicketReadHeld[];
}

/**
 * Everything the read tables hold about `userId`: one query per table, every one in one read-only snapshot,
 * so the export is the state of one instant. Empty sections for a user the service holds nothing about.
 */
export async function heldDataOf(db: CommonQueryMethods, userId: string): Promise<HeldData> {
  return db.transaction(async (tx) => {
    await tx.query(sql.unsafe`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
    return {
      devices: await devicesOf(tx, userId),
      notificationSettings: await notificationSettingsOf(tx, userId),
      pushes: await pushesOf(tx, userId),
      comments: await tx.any(sql.type(commentRow)`
        SELECT c.id, c.channel_id, c.post_id, c.text, c.status, c.created_at, c.updated_at,
          a.content_type AS image_type, a.size AS image_size
        FROM channel_comments c LEFT JOIN comment_attachments a ON a.comment_id = c.id
        WHERE c.author_id = ${userId} ORDER BY c.created_at, c.id`),
      reactions: await tx.any(sql.type(reactionRow)`
        SELECT post_id, emoji, reacted_at FROM post_reactions
        WHERE user_id = ${userId} ORDER BY reacted_at, post_id, emoji`),
      postViews: await tx.any(sql.type(viewRow)`
        SELECT post_id, viewed_at FROM post_views WHERE user_id = ${userId} ORDER BY viewed_at, post_id`),
      buttonClicks: await tx.any(sql.type(clickRow)`
        SELECT post_id, button_id, clicked_at FROM post_button_clicks
        WHERE user_id = ${userId} ORDER BY clicked_at, event_id`),
      channelReads: await tx.any(sql.type(readRow)`
        SELECT channel_id, last_read_post_id, last_read_published_at, updated_at FROM channel_reads
        WHERE user_id = ${userId} ORDER BY channel_id`),
      reports: await reportsOf(tx, userId),
      bans: await bansOf(tx, userId),
      moderatorRoles: await moderatorRolesOf(tx, userId),
      moderationHistory: await moderationHistoryOf(tx, userId),
      csatRatings: await tx.any(sql.type(ratingRow)`
        SELECT id, target_type, target_id, rating, comment, rated_at FROM csat_ratings
        WHERE user_id = ${userId} ORDER BY rated_at, id`),
      complaints: await complaintsOf(tx, userId),
      files: await tx.any(sql.type(fileRow)`
        SELECT id, original_name, content_type, kind, size, created_at FROM files
        WHERE owner_id = ${userId} ORDER BY created_at, id`),
      supportContact: await supportContactOf(tx, userId),
      conversationReads: await conversationReadsOf(tx, userId),
      ticketReads: await ticketReadsOf(tx, userId),
    };
  });
}
