import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { ChannelSettings } from '../events/channels.ts';

export interface ChannelView extends ChannelSettings {
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

const row = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    avatar_url: z.string().nullable(),
    allowed_reactions: z.array(z.string()),
    comments_enabled: z.boolean(),
    comment_interval_seconds: z.number(),
    comment_burst: z.number(),
    auto_hide_reports: z.number(),
    created_at: z.coerce.date(),
    updated_at: z.coerce.date(),
  })
  .transform((r): ChannelView => ({
    id: r.id,
    title: r.title,
    description: r.description,
    avatarUrl: r.avatar_url,
    allowedReactions: r.allowed_reactions,
    commentsEnabled: r.comments_enabled,
    commentRate: { intervalSeconds: r.comment_interval_seconds, burst: r.comment_burst },
    autoHideReports: r.auto_hide_reports,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  }));

const columns = sql.fragment`id, title, description, avatar_url, allowed_reactions, comments_enabled,
  comment_interval_seconds, comment_burst, auto_hide_reports, created_at, updated_at`;

/** Every channel, oldest first (a service has a handful). */
export async function listChannels(db: CommonQueryMethods): Promise<readonly ChannelView[]> {
  return db.any(sql.type(row)`SELECT ${columns} FROM channels ORDER BY created_at, id`);
}

export async function findChannel(db: CommonQueryMethods, id: string): Promise<ChannelView | null> {
  return db.maybeOne(sql.type(row)`SELECT ${columns} FROM channels WHERE id = ${id}`);
}

export interface ClientChannel {
  readonly id: string;
  readonly title: string;
  readonly description?: string;
  readonly avatarUrl?: string;
  /** Published posts newer than the user's read marker (all of them before the first read). */
  readonly unread: number;
}

/** Every channel as one user sees it, with their unread count. */
export async function channelsForUser(
  db: CommonQueryMethods,
  userId: string,
): Promise<readonly ClientChannel[]> {
  const rows = await db.any(sql.type(
    z.object({
      id: z.string(),
      title: z.string(),
      description: z.string(),
      avatar_url: z.string().nullable(),
      unread: z.number(),
    }),
  )`
    SELECT c.id, c.title, c.description, c.avatar_url,
      (SELECT count(*)::int FROM channel_posts p
        WHERE p.channel_id = c.id AND p.status = 'published'
          AND (r.user_id IS NULL OR (p.published_at, p.id) > (r.last_read_published_at, r.last_read_post_id))
      ) AS unread
    FROM channels c
    LEFT JOIN channel_reads r ON r.channel_id = c.id AND r.user_id = ${userId}
    ORDER BY c.created_at, c.id`);
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    ...(r.description === '' ? {} : { description: r.description }),
    ...(r.avatar_url === null ? {} : { avatarUrl: r.avatar_url }),
    unread: r.unread,
  }));
}
