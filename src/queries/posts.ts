import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { isoInstant } from './iso-instant.ts';
import { buttonsAndAttachmentsColumns, buttonsAndAttachmentsRow } from './post-buttons-and-attachments.ts';
import { postStatusSchema } from '../events/posts.ts';

const iso = isoInstant;
const row = z
  .object({
    id: z.string(),
    channel_id: z.string(),
    status: postStatusSchema,
    text: z.string(),
    comments_enabled: z.boolean(),
    publish_at: iso.nullable(),
    notify: z.boolean(),
    published_at: iso.nullable(),
    edited_at: iso.nullable(),
    created_at: iso,
    updated_at: iso,
    view_count: z.number(),
    comment_count: z.number(),
    ...buttonsAndAttachmentsRow,
  })
  .transform((r) => ({
    id: r.id,
    channelId: r.channel_id,
    status: r.status,
    text: r.text,
    commentsEnabled: r.comments_enabled,
    publishAt: r.publish_at,
    notify: r.notify,
    publishedAt: r.published_at,
    editedAt: r.edited_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    viewCount: r.view_count,
    commentCount: r.comment_count,
    buttons: r.buttons,
    attachments: r.attachments,
  }));
export type AdminPostView = z.infer<typeof row>;

const select = sql.fragment`
  SELECT p.id, p.channel_id, p.status, p.text, p.comments_enabled, p.publish_at, p.notify, p.published_at,
    p.edited_at, p.created_at, p.updated_at, p.view_count,
    COALESCE((SELECT n.count FROM post_comment_counts n WHERE n.post_id = p.id), 0) AS comment_count,
    ${buttonsAndAttachmentsColumns}
  FROM channel_posts p`;

export async function findAdminPost(db: CommonQueryMethods, id: string): Promise<AdminPostView | null> {
  return db.maybeOne(sql.type(row)`${select} WHERE p.id = ${id}`);
}

export interface AdminPostPage {
  readonly items: readonly AdminPostView[];
  /** `<createdAt>|<id>` of the last item when there may be more. */
  readonly after: string | null;
}

/** A channel's posts for the panel, newest first, by status when given (deleted ones only when asked for). */
export async function listAdminPosts(
  db: CommonQueryMethods,
  channelId: string,
  status: z.infer<typeof postStatusSchema> | undefined,
  limit: number,
  after: { readonly createdAt: string; readonly id: string } | null,
): Promise<AdminPostPage> {
  const conditions = [
    sql.fragment`p.channel_id = ${channelId}`,
    status === undefined ? sql.fragment`p.status <> 'deleted'` : sql.fragment`p.status = ${status}`,
    after === null
      ? null
      : sql.fragment`(p.created_at, p.id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`,
  ].filter((c) => c !== null);
  const rows = await db.any(sql.type(row)`
    ${select} WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ORDER BY p.created_at DESC, p.id DESC LIMIT ${limit + 1}`);
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, after: rows.length > limit && last ? `${last.createdAt}|${last.id}` : null };
}
