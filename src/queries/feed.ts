import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { isoInstant } from './iso-instant.ts';
import {
  buttonsAndStoredAttachmentsColumns,
  buttonsAndStoredAttachmentsRow,
} from './post-buttons-and-attachments.ts';

const iso = isoInstant;
const row = z
  .object({
    id: z.string(),
    channel_id: z.string(),
    text: z.string(),
    published_at: iso,
    edited_at: iso.nullable(),
    view_count: z.number(),
    comment_count: z.number(),
    comments_enabled: z.boolean(),
    ...buttonsAndStoredAttachmentsRow,
    counts: z.record(z.string(), z.number()),
  })
  .transform((r) => ({
    id: r.id,
    channelId: r.channel_id,
    text: r.text,
    publishedAt: r.published_at,
    // API.md's `editedAt?`: there only once a published post was edited.
    ...(r.edited_at === null ? {} : { editedAt: r.edited_at }),
    // Where the bytes are, for the signed link `asSeenBy` puts in its place (decision 033).
    attachments: r.attachments.map(({ width, height, durationMs, ...a }) => ({
      ...a,
      ...(width === null ? {} : { width }),
      ...(height === null ? {} : { height }),
      ...(durationMs === null ? {} : { durationMs }),
    })),
    buttons: r.buttons,
    counts: r.counts,
    viewCount: r.view_count,
    commentCount: r.comment_count,
    commentsEnabled: r.comments_enabled,
  }));
/**
 * A published post as every user sees it: the reaction counts, not anyone's own reactions, and where its
 * media is stored, not yet the links to it.
 */
export type SharedPost = z.infer<typeof row>;
export type FeedPost = ReturnType<typeof asSeenBy>;

/** The link a client loads a post's media from (a signed one, minted by the HTTP layer: decision 033). */
export type PostMediaUrl = (media: {
  readonly postId: string;
  readonly id: string;
  readonly storageKey: string;
}) => string;

/**
 * The post as API.md gives it to one user: the counts with that user's own reactions beside them, and
 * each attachment's `url` in place of its storage key.
 */
export function asSeenBy({ counts, ...post }: SharedPost, mine: readonly string[], mediaUrl: PostMediaUrl) {
  const { viewCount, commentCount, commentsEnabled, ...head } = post;
  return {
    ...head,
    // `attachments` keeps its place in `head`, and `url` its place in each: the same JSON as before.
    attachments: head.attachments.map(({ storageKey, ...media }) => {
      const { id, kind, contentType, size, ...dimensions } = media;
      const url = mediaUrl({ postId: post.id, id, storageKey });
      return { id, kind, contentType, size, url, ...dimensions };
    }),
    reactions: { counts, mine },
    viewCount,
    commentCount,
    commentsEnabled,
  };
}

const select = sql.fragment`
  SELECT p.id, p.channel_id, p.text, p.published_at, p.edited_at, p.view_count,
    COALESCE((SELECT n.count FROM post_comment_counts n WHERE n.post_id = p.id), 0) AS comment_count,
    p.comments_enabled,
    ${buttonsAndStoredAttachmentsColumns},
    COALESCE((SELECT json_object_agg(c.emoji, c.count ORDER BY c.emoji)
      FROM post_reaction_counts c WHERE c.post_id = p.id AND c.count > 0), '{}') AS counts
  FROM channel_posts p`;

export interface SharedPage {
  readonly items: readonly SharedPost[];
  /** `<publishedAt>|<id>` of the last item when there may be more. */
  readonly before: string | null;
}

/** A page of a channel's published posts, newest first, the same for every user. */
export async function publishedPosts(
  db: CommonQueryMethods,
  channelId: string,
  limit: number,
  before: { readonly publishedAt: string; readonly id: string } | null,
): Promise<SharedPage> {
  const older =
    before === null
      ? sql.fragment`true`
      : sql.fragment`(p.published_at, p.id) < (${before.publishedAt}::timestamptz, ${before.id}::uuid)`;
  const rows = await db.any(sql.type(row)`
    ${select}
    WHERE p.channel_id = ${channelId} AND p.status = 'published' AND ${older}
    ORDER BY p.published_at DESC, p.id DESC LIMIT ${limit + 1}`);
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, before: rows.length > limit && last ? `${last.publishedAt}|${last.id}` : null };
}

/** One user's own reactions on the given posts, by post id (posts without any are left out). */
export async function reactionsOf(
  db: CommonQueryMethods,
  userId: string,
  postIds: readonly string[],
): Promise<ReadonlyMap<string, readonly string[]>> {
  if (postIds.length === 0) return new Map();
  const rows = await db.any(sql.type(z.object({ post_id: z.string(), emojis: z.array(z.string()) }))`
    SELECT post_id, json_agg(emoji ORDER BY emoji) AS emojis FROM post_reactions
    WHERE user_id = ${userId} AND post_id = ANY (${sql.array([...postIds], 'uuid')})
    GROUP BY post_id`);
  return new Map(rows.map((r) => [r.post_id, r.emojis]));
}

const ownRow = z.object({ user_id: z.string(), post_id: z.string(), emojis: z.array(z.string()) });

/** `reactionsOf` for many (user, posts) questions in one query, answered in the order asked. */
export async function reactionsOfUsers(
  db: CommonQueryMethods,
  questions: readonly { readonly userId: string; readonly postIds: readonly string[] }[],
): Promise<readonly ReadonlyMap<string, readonly string[]>[]> {
  const users = [...new Set(questions.map((q) => q.userId))];
  const posts = [...new Set(questions.flatMap((q) => q.postIds))];
  if (posts.length === 0) return questions.map(() => new Map());
  const rows = await db.any(sql.type(ownRow)`
    SELECT user_id, post_id, json_agg(emoji ORDER BY emoji) AS emojis FROM post_reactions
    WHERE user_id = ANY (${sql.array(users, 'text')}) AND post_id = ANY (${sql.array(posts, 'uuid')})
    GROUP BY user_id, post_id`);
  const found = new Map(rows.map((r) => [`${r.user_id}\n${r.post_id}`, r.emojis]));
  return questions.map(({ userId, postIds }) => {
    const own = new Map<string, readonly string[]>();
    for (const postId of postIds) {
      const emojis = found.get(`${userId}\n${postId}`);
      if (emojis) own.set(postId, emojis);
    }
    return own;
  });
}

/** One post as every client sees it (without their own reactions); null unless published in that channel. */
export function publishedPost(
  db: CommonQueryMethods,
  channelId: string,
  postId: string,
): Promise<SharedPost | null> {
  return db.maybeOne(sql.type(row)`
    ${select} WHERE p.id = ${postId} AND p.channel_id = ${channelId} AND p.status = 'published'`);
}

/** A visible post's reactions as one user sees them. */
export async function postReactions(
  db: CommonQueryMethods,
  postId: string,
  userId: string,
): Promise<{ counts: Record<string, number>; mine: string[] }> {
  const counts = await db.any(sql.type(z.object({ emoji: z.string(), count: z.number() }))`
    SELECT emoji, count FROM post_reaction_counts WHERE post_id = ${postId} AND count > 0 ORDER BY emoji`);
  const mine = await reactionsOf(db, userId, [postId]);
  return {
    counts: Object.fromEntries(counts.map((c) => [c.emoji, c.count])),
    mine: [...(mine.get(postId) ?? [])],
  };
}

/** The attachment of a visible post, with where its bytes are. */
export async function visibleAttachment(
  db: CommonQueryMethods,
  channelId: string,
  postId: string,
  attachmentId: string,
) {
  return db.maybeOne(sql.type(
    z.object({
      storage_key: z.string(),
      content_type: z.string(),
      size: z.coerce.number(),
      kind: z.string(),
    }),
  )`
    SELECT a.storage_key, a.content_type, a.size, a.kind FROM post_attachments a
    JOIN channel_posts p ON p.id = a.post_id
    WHERE a.id = ${attachmentId} AND a.post_id = ${postId} AND p.channel_id = ${channelId}
      AND p.status = 'published'`);
}

/**
 * A published post's attachment by the post's and its own id (the table's key), with where its bytes
 * are: what a signed media link opens. Null once the post is hidden or deleted, or the attachment removed.
 */
export async function publishedMedia(db: CommonQueryMethods, postId: string, attachmentId: string) {
  return db.maybeOne(sql.type(
    z.object({ storage_key: z.string(), content_type: z.string(), size: z.coerce.number() }),
  )`
    SELECT a.storage_key, a.content_type, a.size FROM post_attachments a
    JOIN channel_posts p ON p.id = a.post_id
    WHERE a.post_id = ${postId} AND a.id = ${attachmentId} AND p.status = 'published'`);
}

/** A visible post's button, for a click; null unless the post is published in that channel. */
export async function visibleButton(
  db: CommonQueryMethods,
  channelId: string,
  postId: string,
  buttonId: string,
): Promise<{ readonly url: string } | null> {
  return db.maybeOne(sql.type(z.object({ url: z.string() }))`
    SELECT b.url FROM post_buttons b JOIN channel_posts p ON p.id = b.post_id
    WHERE b.id = ${buttonId} AND b.post_id = ${postId} AND p.channel_id = ${channelId} AND p.status = 'published'`);
}

/** When a visible post was published: where a read marker on it stands. */
export async function publishedAtOf(
  db: CommonQueryMethods,
  channelId: string,
  postId: string,
): Promise<string | null> {
  const found = await db.maybeOneFirst(sql.type(z.object({ published_at: isoInstant }))`
    SELECT published_at FROM channel_posts
    WHERE id = ${postId} AND channel_id = ${channelId} AND status = 'published'`);
  return found ?? null;
}
