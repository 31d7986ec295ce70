import DataLoader from 'dataloader';
import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { commentStatusSchema, reportActionSchema, reportReasonSchema } from '../events/comments.ts';
import { isoInstant } from './iso-instant.ts';

const row = z
  .object({
    id: z.string(),
    channel_id: z.string(),
    post_id: z.string(),
    // Both null once the author was erased (decision 048).
    author_id: z.string().nullable(),
    author_is_moderator: z.boolean(),
    text: z.string().nullable(),
    status: commentStatusSchema,
    created_at: isoInstant,
    updated_at: isoInstant,
    change_seq: z.coerce.number(),
    image_storage_key: z.string().nullable(),
    image_content_type: z.string().nullable(),
    image_width: z.number().nullable(),
    image_height: z.number().nullable(),
  })
  .transform((r) => ({
    id: r.id,
    channelId: r.channel_id,
    postId: r.post_id,
    authorId: r.author_id,
    authorIsModerator: r.author_is_moderator,
    text: r.text,
    status: r.status,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    changeSeq: r.change_seq,
    image:
      r.image_content_type === null || r.image_storage_key === null
        ? null
        : {
            // Where the bytes are: for the signed link of the client's view (decision 033), never shown.
            storageKey: r.image_storage_key,
            contentType: r.image_content_type,
            ...(r.image_width === null ? {} : { width: r.image_width }),
            ...(r.image_height === null ? {} : { height: r.image_height }),
          },
  }));
/** A comment as the read table holds it, with whether its author moderates the channel. */
export type CommentRow = z.infer<typeof row>;

const columns = sql.fragment`
  c.id, c.channel_id, c.post_id, c.author_id, c.text, c.status, c.created_at, c.updated_at, c.change_seq,
  EXISTS (SELECT 1 FROM comment_moderators m WHERE m.channel_id = c.channel_id AND m.user_id = c.author_id)
    AS author_is_moderator,
  a.storage_key AS image_storage_key, a.content_type AS image_content_type, a.width AS image_width, a.height AS image_height`;
const from = sql.fragment`FROM channel_comments c LEFT JOIN comment_attachments a ON a.comment_id = c.id`;
const select = sql.fragment`SELECT ${columns} ${from}`;

/** A post's comments changed after `since` (the change counter), in change order. */
export async function commentChanges(
  db: CommonQueryMethods,
  postId: string,
  since: number,
  limit: number,
): Promise<readonly CommentRow[]> {
  return db.any(sql.type(row)`
    ${select} WHERE c.post_id = ${postId} AND c.change_seq > ${since}
    ORDER BY c.change_seq LIMIT ${limit}`);
}

/** A post's latest `count` changes (one row per comment), in change order. */
export async function latestChanges(
  db: CommonQueryMethods,
  postId: string,
  count: number,
): Promise<readonly CommentRow[]> {
  const rows = await db.any(sql.type(row)`
    ${select} WHERE c.post_id = ${postId} ORDER BY c.change_seq DESC LIMIT ${count}`);
  return rows.toReversed();
}

/**
 * The latest page of a post's comments (visible ones; hidden ones too for moderators), oldest first, and
 * the post's change counter as it stood when they were read: the poll's next `since`.
 */
export async function latestComments(
  db: CommonQueryMethods,
  postId: string,
  limit: number,
  withHidden: boolean,
): Promise<{ readonly items: readonly CommentRow[]; readonly head: number }> {
  return db.transaction(async (tx) => {
    // One snapshot for both reads, so no change falls between the page and its cursor.
    await tx.query(sql.unsafe`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
    const statuses = withHidden ? ['visible', 'hidden'] : ['visible'];
    const items = await tx.any(sql.type(row)`
      SELECT * FROM (
        ${select} WHERE c.post_id = ${postId} AND c.status = ANY (${sql.array(statuses, 'text')})
        ORDER BY c.created_at DESC, c.id DESC LIMIT ${limit}
      ) latest ORDER BY created_at, id`);
    const head = await tx.oneFirst(sql.type(z.object({ head: z.coerce.number() }))`
      SELECT COALESCE(max(change_seq), 0) AS head FROM channel_comments WHERE post_id = ${postId}`);
    return { items, head };
  });
}

export async function findComment(db: CommonQueryMethods, id: string): Promise<CommentRow | null> {
  return db.maybeOne(sql.type(row)`${select} WHERE c.id = ${id}`);
}

/** A comment, when it belongs to that post of that channel. */
export async function findPostComment(
  db: CommonQueryMethods,
  ref: { readonly channelId: string; readonly postId: string; readonly commentId: string },
): Promise<CommentRow | null> {
  const comment = await findComment(db, ref.commentId);
  return comment?.postId === ref.postId && comment.channelId === ref.channelId ? comment : null;
}

/** Where a comment's image is, for serving it. */
export async function commentImage(db: CommonQueryMethods, commentId: string) {
  return db.maybeOne(
    sql.type(
      z.object({ storage_key: z.string(), content_type: z.string(), size: z.coerce.number() }),
    )`SELECT storage_key, content_type, size FROM comment_attachments WHERE comment_id = ${commentId}`,
  );
}

/**
 * A comment's picture by the comment's id (the table's key), with where its bytes are: what a signed
 * media link opens. Null once the comment is deleted; a hidden one's stays (moderators see it).
 */
export async function linkedCommentImage(db: CommonQueryMethods, commentId: string) {
  return db.maybeOne(
    sql.type(z.object({ storage_key: z.string(), content_type: z.string(), size: z.coerce.number() }))`
      SELECT a.storage_key, a.content_type, a.size FROM comment_attachments a
      JOIN channel_comments c ON c.id = a.comment_id
      WHERE a.comment_id = ${commentId} AND c.status <> 'deleted'`,
  );
}

export interface ChannelCommentFilter {
  readonly status?: 'visible' | 'hidden' | 'deleted' | undefined;
  readonly postId?: string | undefined;
  /** Only comments with an open report. */
  readonly reported?: boolean | undefined;
  /** `<createdAt>|<id>` of the last comment of the previous page. */
  readonly before?: { readonly createdAt: string; readonly id: string } | undefined;
  readonly limit: number;
}

/** A channel's comments for moderators, newest first, with their open report counts. */
export async function channelComments(
  db: CommonQueryMethods,
  channelId: string,
  filter: ChannelCommentFilter,
): Promise<readonly (CommentRow & { readonly openReports: number })[]> {
  const conditions = [
    sql.fragment`c.channel_id = ${channelId}`,
    ...(filter.status ? [sql.fragment`c.status = ${filter.status}`] : []),
    ...(filter.postId ? [sql.fragment`c.post_id = ${filter.postId}`] : []),
    ...(filter.before
      ? [
          sql.fragment`(c.created_at, c.id) < (${filter.before.createdAt}::timestamptz, ${filter.before.id}::uuid)`,
        ]
      : []),
  ];
  const reportCount = sql.fragment`
    (SELECT count(*) FROM comment_reports r WHERE r.comment_id = c.id AND r.status = 'open')`;
  if (filter.reported) conditions.push(sql.fragment`${reportCount} > 0`);
  const withReports = row.and(z.object({ open_reports: z.coerce.number() })).transform((r) => {
    const { open_reports: openReports, ...comment } = r;
    return { ...comment, openReports };
  });
  return db.any(sql.type(withReports)`
    SELECT ${columns}, ${reportCount} AS open_reports ${from}
    WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ORDER BY c.created_at DESC, c.id DESC LIMIT ${filter.limit}`);
}

const reportRow = z
  .object({
    id: z.string(),
    comment_id: z.string(),
    channel_id: z.string(),
    post_id: z.string(),
    // Null once the reporter was erased (decision 048), with the note.
    reporter_id: z.string().nullable(),
    reason: reportReasonSchema,
    note: z.string().nullable(),
    status: z.enum(['open', 'resolved']),
    action: reportActionSchema.nullable(),
    resolved_by_type: z.string().nullable(),
    resolved_by_id: z.string().nullable(),
    created_at: isoInstant,
    resolved_at: isoInstant.nullable(),
    comment_status: commentStatusSchema,
  })
  .transform((r) => ({
    id: r.id,
    commentId: r.comment_id,
    channelId: r.channel_id,
    postId: r.post_id,
    reporterId: r.reporter_id,
    reason: r.reason,
    ...(r.note === null ? {} : { note: r.note }),
    status: r.status,
    commentStatus: r.comment_status,
    createdAt: r.created_at,
    ...(r.action === null ? {} : { action: r.action }),
    ...(r.resolved_at === null ? {} : { resolvedAt: r.resolved_at }),
    ...(r.resolved_by_id === null
      ? {}
      : { resolvedBy: { type: r.resolved_by_type ?? '', id: r.resolved_by_id } }),
  }));
export type ReportView = z.infer<typeof reportRow>;

const reportSelect = sql.fragment`
  SELECT r.*, c.status AS comment_status FROM comment_reports r JOIN channel_comments c ON c.id = r.comment_id`;

/** The report queue, oldest first (the longest waiting on top), after a keyset position. */
export async function listReports(
  db: CommonQueryMethods,
  status: 'open' | 'resolved',
  limit: number,
  after: { readonly createdAt: string; readonly id: string } | null,
): Promise<readonly ReportView[]> {
  const keyset = after
    ? sql.fragment`AND (r.created_at, r.id) > (${after.createdAt}::timestamptz, ${after.id}::uuid)`
    : sql.fragment``;
  return db.any(sql.type(reportRow)`
    ${reportSelect} WHERE r.status = ${status} ${keyset} ORDER BY r.created_at, r.id LIMIT ${limit}`);
}

export async function findReport(db: CommonQueryMethods, id: string): Promise<ReportView | null> {
  return db.maybeOne(sql.type(reportRow)`${reportSelect} WHERE r.id = ${id}`);
}

const targetRow = z
  .object({
    comments_enabled: z.boolean(),
    auto_hide_reports: z.number(),
    comment_interval_seconds: z.number(),
    comment_burst: z.number(),
  })
  .transform((r) => ({
    commentsEnabled: r.comments_enabled,
    autoHideReports: r.auto_hide_reports,
    commentRate: { intervalSeconds: r.comment_interval_seconds, burst: r.comment_burst },
  }));
export type CommentTarget = z.infer<typeof targetRow>;

/**
 * What commenting on a post depends on: whether comments are open (on the post and in its channel), the
 * channel's report threshold and slow mode. Null unless clients can see the post in that channel.
 */
export async function commentTarget(
  db: CommonQueryMethods,
  channelId: string,
  postId: string,
): Promise<CommentTarget | null> {
  return db.maybeOne(sql.type(targetRow)`
    SELECT p.comments_enabled AND ch.comments_enabled AS comments_enabled, ch.auto_hide_reports,
      ch.comment_interval_seconds, ch.comment_burst
    FROM channel_posts p JOIN channels ch ON ch.id = p.channel_id
    WHERE p.id = ${postId} AND p.channel_id = ${channelId} AND p.status = 'published'`);
}

const posterRow = z.object({
  ban_until: isoInstant.nullable(),
  banned: z.boolean(),
  is_moderator: z.boolean(),
});

/** What the read side knows for a new comment (the command side's `PostingContext` port takes it). */
export type PostingContextRow = CommentTarget & {
  readonly ban: { readonly until: string | null } | null;
  readonly posterIsModerator: boolean;
};

/** `commentTarget` with what posting also needs to know of the poster. */
export type PostingContextLookup = (
  channelId: string,
  postId: string,
  userId: string,
) => Promise<PostingContextRow | null>;

/** Comments posted at the same moment whose posting contexts one query reads, at the most. */
const MAX_POSTING_BATCH = 100;

const postingRow = targetRow.and(posterRow).and(z.object({ i: z.coerce.number() }));

/**
 * The posting context of every comment being posted at the same moment, in one round trip: the post
 * and channel rules, the poster's ban in the channel when it holds now, and whether they moderate its
 * comments (the badge on their comment). Lookups made while the event loop handles one round of I/O
 * share a query (DataLoader, nothing cached: each comment reads the current state). Under load, posting
 * is bound by round trips to PostgreSQL, and this was one per comment (decision 016).
 */
export function createPostingContextLookup(db: CommonQueryMethods): PostingContextLookup {
  type Key = readonly [channelId: string, postId: string, userId: string];
  const loader = new DataLoader<Key, PostingContextRow | null>(
    async (keys) => {
      const column = (at: 0 | 1 | 2, type: 'uuid' | 'text') =>
        sql.array(
          keys.map((k) => k[at]),
          type,
        );
      // A named prepared statement: with arrays, its text is the same for any number of lookups.
      const rows = await db.any(sql.prepared('comment_posting_contexts', postingRow)`
        SELECT k.i, p.comments_enabled AND ch.comments_enabled AS comments_enabled, ch.auto_hide_reports,
          ch.comment_interval_seconds, ch.comment_burst,
          b.until AS ban_until, b.user_id IS NOT NULL AS banned,
          EXISTS (SELECT 1 FROM comment_moderators m WHERE m.channel_id = ch.id AND m.user_id = k.user_id)
            AS is_moderator
        FROM unnest(${column(0, 'uuid')}, ${column(1, 'uuid')}, ${column(2, 'text')})
          WITH ORDINALITY AS k (channel_id, post_id, user_id, i)
        JOIN channel_posts p ON p.id = k.post_id AND p.channel_id = k.channel_id AND p.status = 'published'
        JOIN channels ch ON ch.id = p.channel_id
        LEFT JOIN comment_bans b ON b.channel_id = ch.id AND b.user_id = k.user_id
          AND (b.until IS NULL OR b.until > now())`);
      const found = new Array<PostingContextRow | null>(keys.length).fill(null);
      for (const { i, ban_until: until, banned, is_moderator: posterIsModerator, ...target } of rows) {
        found[i - 1] = { ...target, ban: banned ? { until } : null, posterIsModerator };
      }
      return found;
    },
    { cache: false, maxBatchSize: MAX_POSTING_BATCH, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
  );
  return (channelId, postId, userId) => loader.load([channelId, postId, userId]);
}
