import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { isoInstant } from './iso-instant.ts';

export async function isCommentModerator(
  db: CommonQueryMethods,
  channelId: string,
  userId: string,
): Promise<boolean> {
  return db.exists(sql.unsafe`
    SELECT 1 FROM comment_moderators WHERE channel_id = ${channelId} AND user_id = ${userId}`);
}

/** `isCommentModerator` for many (channel, user) questions in one query, answered in the order asked. */
export async function areCommentModerators(
  db: CommonQueryMethods,
  questions: readonly { readonly channelId: string; readonly userId: string }[],
): Promise<readonly boolean[]> {
  const rows = await db.any(sql.type(z.object({ channel_id: z.string(), user_id: z.string() }))`
    SELECT channel_id, user_id FROM comment_moderators
    WHERE (channel_id, user_id) IN (
      SELECT * FROM unnest(${sql.array(
        questions.map((q) => q.channelId),
        'uuid',
      )}, ${sql.array(
        questions.map((q) => q.userId),
        'text',
      )}))`);
  const found = new Set(rows.map((r) => `${r.channel_id}\n${r.user_id}`));
  return questions.map((q) => found.has(`${q.channelId}\n${q.userId}`));
}

const banRow = z
  .object({
    user_id: z.string(),
    until: isoInstant.nullable(),
    // Null once the banned user was erased (decision 048).
    reason: z.string().nullable(),
    banned_by_type: z.string(),
    banned_by_id: z.string(),
    banned_at: isoInstant,
  })
  .transform((r) => ({
    userId: r.user_id,
    until: r.until,
    reason: r.reason,
    bannedBy: { type: r.banned_by_type, id: r.banned_by_id },
    bannedAt: r.banned_at,
  }));
export type BanView = z.infer<typeof banRow>;

/** The channel's bans that hold now, newest first. */
export async function activeBans(db: CommonQueryMethods, channelId: string): Promise<readonly BanView[]> {
  return db.any(sql.type(banRow)`
    SELECT user_id, until, reason, banned_by_type, banned_by_id, banned_at FROM comment_bans
    WHERE channel_id = ${channelId} AND (until IS NULL OR until > now())
    ORDER BY banned_at DESC, user_id`);
}

export async function channelModerators(
  db: CommonQueryMethods,
  channelId: string,
): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ user_id: z.string() }))`
    SELECT user_id FROM comment_moderators WHERE channel_id = ${channelId} ORDER BY user_id`);
}

const eventRow = z
  .object({
    event_id: z.string(),
    seq: z.coerce.number(),
    channel_id: z.string(),
    post_id: z.string().nullable(),
    comment_id: z.string().nullable(),
    user_id: z.string().nullable(),
    action: z.string(),
    actor_type: z.string(),
    // Null once a user who acted (a reporter, a refused poster) was erased (decision 048).
    actor_id: z.string().nullable(),
    reason: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()),
    occurred_at: isoInstant,
  })
  .transform((r) => ({
    id: r.event_id,
    seq: r.seq,
    channelId: r.channel_id,
    postId: r.post_id,
    commentId: r.comment_id,
    userId: r.user_id,
    action: r.action,
    actor: { type: r.actor_type, id: r.actor_id },
    reason: r.reason,
    detail: r.detail,
    occurredAt: r.occurred_at,
  }));
export type ModerationEventView = z.infer<typeof eventRow>;

export interface ModerationEventFilter {
  readonly channelId?: string | undefined;
  readonly userId?: string | undefined;
  readonly commentId?: string | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  /** The `seq` of the last event of the previous page. */
  readonly beforeSeq?: number | undefined;
  readonly limit: number;
}

/** Moderation history, newest first. */
export async function moderationEvents(
  db: CommonQueryMethods,
  filter: ModerationEventFilter,
): Promise<readonly ModerationEventView[]> {
  const conditions = [
    sql.fragment`true`,
    ...(filter.channelId ? [sql.fragment`channel_id = ${filter.channelId}`] : []),
    ...(filter.userId ? [sql.fragment`user_id = ${filter.userId}`] : []),
    ...(filter.commentId ? [sql.fragment`comment_id = ${filter.commentId}`] : []),
    ...(filter.from ? [sql.fragment`occurred_at >= ${filter.from}::timestamptz`] : []),
    ...(filter.to ? [sql.fragment`occurred_at < ${filter.to}::timestamptz`] : []),
    ...(filter.beforeSeq === undefined ? [] : [sql.fragment`seq < ${filter.beforeSeq}`]),
  ];
  return db.any(sql.type(eventRow)`
    SELECT * FROM comment_moderation_events WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ORDER BY seq DESC LIMIT ${filter.limit}`);
}
