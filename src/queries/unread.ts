import { LRUCache } from 'lru-cache';
import { batched, groupedBy } from '../lib/batched.ts';
import { keptWhileAsked } from '../lib/kept-while-asked.ts';
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../db/pool.ts';
import type { ReadChanges } from '../projections/changes.ts';
import { scopes } from '../projections/scopes.ts';

/** Published posts of one channel in feed order, oldest first: microseconds and ids side by side. */
interface Published {
  readonly at: readonly number[];
  readonly ids: readonly string[];
}

interface Marker {
  readonly at: number;
  readonly id: string;
}

export interface ChannelsUnread {
  /** Published posts past the user's read marker (all of them before the first read), by channel. */
  of(userId: string): Promise<Record<string, number>>;
}

const publishedRow = z.object({
  channel_id: z.string(),
  at: z.coerce.number().nullable(),
  id: z.string().nullable(),
});
const markerRow = z.object({
  user_id: z.string(),
  channel_id: z.string(),
  at: z.coerce.number(),
  id: z.string(),
});

/** Users whose read markers this process keeps in memory. */
const REMEMBERED_USERS = 200_000;

/** How many of `published` come after `marker`: (publishedAt, id) order, as the feed pages. */
function after(published: Published, marker: Marker | undefined): number {
  if (marker === undefined) return published.ids.length;
  let low = 0;
  let high = published.ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const at = published.at[middle] ?? 0;
    const id = published.ids[middle] ?? '';
    if (at < marker.at || (at === marker.at && id <= marker.id)) low = middle + 1;
    else high = middle;
  }
  return published.ids.length - low;
}

/**
 * The channels' unread badges of `/api/unread`, polled by every client every few seconds, from memory
 * (decision 022): the published posts of every channel, read again when a channel or a post's publication
 * changes anywhere, and each user's read markers, read again when that user's markers move. A poll that
 * changes nothing reads nothing. Times are compared in microseconds, as the database keeps them, and
 * post ids as the database orders uuids (their lower-case text).
 */
export function createChannelsUnread(pool: DatabasePool, changes: ReadChanges): ChannelsUnread {
  const published = new LRUCache<string, ReadonlyMap<string, Published>>({
    max: 4,
    fetchMethod: async () => {
      const rows = await pool.any(sql.type(publishedRow)`
        SELECT c.id AS channel_id, (extract(epoch FROM p.published_at) * 1000000)::bigint AS at, p.id
        FROM channels c
        LEFT JOIN channel_posts p ON p.channel_id = c.id AND p.status = 'published'
        ORDER BY c.created_at, c.id, p.published_at, p.id`);
      const channels = new Map<string, { at: number[]; ids: string[] }>();
      for (const row of rows) {
        let channel = channels.get(row.channel_id);
        if (channel === undefined) {
          channel = { at: [], ids: [] };
          channels.set(row.channel_id, channel);
        }
        if (row.at !== null && row.id !== null) {
          channel.at.push(row.at);
          channel.ids.push(row.id);
        }
      }
      return channels;
    },
  });
  // Many users' first polls at once share one query (lib/batched.ts).
  const markersOf = batched(async (userIds: readonly string[]) => {
    const rows = await pool.any(sql.type(markerRow)`
      SELECT user_id, channel_id, (extract(epoch FROM last_read_published_at) * 1000000)::bigint AS at,
        last_read_post_id AS id
      FROM channel_reads WHERE user_id = ANY (${sql.array([...userIds], 'text')})`);
    return groupedBy(
      userIds,
      rows,
      (r) => r.user_id,
      (own): ReadonlyMap<string, Marker> => new Map(own.map((r) => [r.channel_id, { at: r.at, id: r.id }])),
    );
  });
  const markers = new LRUCache<string, ReadonlyMap<string, Marker>, string>({
    max: REMEMBERED_USERS,
    ...keptWhileAsked,
    fetchMethod: (_key, _stale, { context: userId }) => markersOf(userId),
  });
  return {
    async of(userId) {
      const postsKey = changes.of(scopes.channels, scopes.published);
      const channels = published.get(postsKey) ?? (await published.fetch(postsKey));
      const markersKey = `${changes.of(scopes.readsOf(userId))}\n${userId}`;
      const own = markers.get(markersKey) ?? (await markers.fetch(markersKey, { context: userId }));
      if (channels === undefined || own === undefined) throw new Error('channels unread: nothing read');
      const unread: Record<string, number> = {};
      for (const [channelId, posts] of channels) unread[channelId] = after(posts, own.get(channelId));
      return unread;
    },
  };
}
