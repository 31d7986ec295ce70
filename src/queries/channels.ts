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
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  }));

const columns = sql.fragment`id, title, description, avatar_url, allowed_reactions, comments_enabled,
  comment_interval_seconds, comment_burst, created_at, updated_at`;

/** Every channel, oldest first (a service has a handful). */
export async function listChannels(db: CommonQueryMethods): Promise<readonly ChannelView[]> {
  return db.any(sql.type(row)`SELECT ${columns} FROM channels ORDER BY created_at, id`);
}

export async function findChannel(db: CommonQueryMethods, id: string): Promise<ChannelView | null> {
  return db.maybeOne(sql.type(row)`SELECT ${columns} FROM channels WHERE id = ${id}`);
}
