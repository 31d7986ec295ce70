import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { reportActionSchema, reportReasonSchema } from '../events/comments.ts';
import { isoInstant } from './iso-instant.ts';

// The moderation side of the export (decision 048): the reports the user made, their bans and moderator
// roles, and the history of moderation about them. Who resolved a report, banned the user or acted on
// them is someone else's data: the export names none of them.

const text = z.string().nullable();
const instant = isoInstant.nullable();

const reportRow = z
  .object({
    id: z.string(),
    comment_id: z.string(),
    channel_id: z.string(),
    post_id: z.string(),
    reason: reportReasonSchema,
    note: text,
    status: z.enum(['open', 'resolved']),
    action: reportActionSchema.nullable(),
    created_at: isoInstant,
    resolved_at: instant,
  })
  .transform((r) => ({
    id: r.id,
    commentId: r.comment_id,
    channelId: r.channel_id,
    postId: r.post_id,
    reason: r.reason,
    note: r.note,
    status: r.status,
    action: r.action,
    createdAt: r.created_at,
    resolvedAt: r.resolved_at,
  }));

const banRow = z
  .object({ channel_id: z.string(), until: instant, reason: text, banned_at: isoInstant })
  .transform((r) => ({ channelId: r.channel_id, until: r.until, reason: r.reason, bannedAt: r.banned_at }));

const moderatorRow = z
  .object({ channel_id: z.string(), assigned_at: isoInstant })
  .transform((r) => ({ channelId: r.channel_id, assignedAt: r.assigned_at }));

const historyRow = z
  .object({
    action: z.string(),
    channel_id: z.string(),
    post_id: text,
    comment_id: text,
    occurred_at: isoInstant,
  })
  .transform((r) => ({
    action: r.action,
    channelId: r.channel_id,
    postId: r.post_id,
    commentId: r.comment_id,
    at: r.occurred_at,
  }));

export type ReportHeld = z.infer<typeof reportRow>;
export type BanHeld = z.infer<typeof banRow>;
export type ModeratorRoleHeld = z.infer<typeof moderatorRow>;
export type ModerationEventHeld = z.infer<typeof historyRow>;

export const reportsOf = (db: CommonQueryMethods, userId: string) =>
  db.any(sql.type(reportRow)`
    SELECT id, comment_id, channel_id, post_id, reason, note, status, action, created_at, resolved_at
    FROM comment_reports WHERE reporter_id = ${userId} ORDER BY created_at, id`);

export const bansOf = (db: CommonQueryMethods, userId: string) =>
  db.any(sql.type(banRow)`
    SELECT channel_id, until, reason, banned_at FROM comment_bans
    WHERE user_id = ${userId} ORDER BY banned_at, channel_id`);

export const moderatorRolesOf = (db: CommonQueryMethods, userId: string) =>
  db.any(sql.type(moderatorRow)`
    SELECT channel_id, assigned_at FROM comment_moderators
    WHERE user_id = ${userId} ORDER BY assigned_at, channel_id`);

/**
 * What moderation did about the user (their bans, roles, comments), oldest first. The actor, the reason
 * and the detail stay out: they name the moderator or the reporter, or hold what another user wrote.
 */
export const moderationHistoryOf = (db: CommonQueryMethods, userId: string) =>
  db.any(sql.type(historyRow)`
    SELECT action, channel_id, post_id, comment_id, occurred_at FROM comment_moderation_events
    WHERE user_id = ${userId} ORDER BY seq`);
