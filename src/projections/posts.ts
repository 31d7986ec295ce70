import { type CommonQueryMethods, type IdentifierSqlToken, sql } from 'slonik';
import { z } from 'zod';
import type { RecordedEvent } from '../events/envelope.ts';
import {
  type PostAttachment,
  type PostButton,
  POSTS_CATEGORY,
  postEventSchema,
  postOfStream,
} from '../events/posts.ts';
import { postsViewed, userOfReaderStream, VIEWS_CATEGORY } from '../events/interactions.ts';
import { applyAroundErasures, ERASURES } from './erasures.ts';
import type { Projection, Tables } from './projection.ts';
import { scopes } from './scopes.ts';

type PostTable = 'channel_posts' | 'post_buttons' | 'post_attachments' | 'post_views';
type PostTables = Tables<PostTable>;

async function replaceButtons(
  db: CommonQueryMethods,
  table: IdentifierSqlToken,
  postId: string,
  buttons: readonly PostButton[],
): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM ${table} WHERE post_id = ${postId}`);
  if (buttons.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO ${table} (post_id, id, position, label, url)
    SELECT ${postId}, i::uuid, p, l, u
    FROM unnest(${sql.array(
      buttons.map((b) => b.id),
      'text',
    )}, ${sql.array(
      buttons.map((_, i) => i),
      'int4',
    )}, ${sql.array(
      buttons.map((b) => b.label),
      'text',
    )}, ${sql.array(
      buttons.map((b) => b.url),
      'text',
    )}) AS x (i, p, l, u)`);
}

async function addAttachment(
  db: CommonQueryMethods,
  table: IdentifierSqlToken,
  postId: string,
  a: PostAttachment,
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO ${table} (post_id, id, position, kind, storage_key, content_type, size, width, height, duration_ms)
    VALUES (${postId}, ${a.id},
      (SELECT COALESCE(max(position), -1) + 1 FROM ${table} WHERE post_id = ${postId}),
      ${a.kind}, ${a.storageKey}, ${a.contentType}, ${a.size}, ${a.width ?? null}, ${a.height ?? null},
      ${a.durationMs ?? null})`);
}

/** One view per (user, post): new pairs are stored and counted on the post row in the same statement. */
async function countViews(
  db: CommonQueryMethods,
  tables: PostTables,
  views: readonly { postId: string; userId: string; at: string }[],
): Promise<void> {
  if (views.length === 0) return;
  await db.query(sql.unsafe`
    WITH fresh AS (
      INSERT INTO ${tables.post_views} (post_id, user_id, viewed_at)
      SELECT DISTINCT ON (p, u) p::uuid, u, a::timestamptz
      FROM unnest(${sql.array(
        views.map((v) => v.postId),
        'text',
      )}, ${sql.array(
        views.map((v) => v.userId),
        'text',
      )}, ${sql.array(
        views.map((v) => v.at),
        'text',
      )}) AS x (p, u, a)
      ORDER BY p, u, a
      ON CONFLICT DO NOTHING
      RETURNING post_id
    ), counted AS (SELECT post_id, count(*)::int AS n FROM fresh GROUP BY post_id)
    UPDATE ${tables.channel_posts} c SET view_count = c.view_count + counted.n
    FROM counted WHERE c.id = counted.post_id`);
}

/** A change to the post row: its columns (raw SQL fragments), plus the bump every change makes. */
async function update(
  db: CommonQueryMethods,
  posts: IdentifierSqlToken,
  postId: string,
  at: string,
  set: ReturnType<typeof sql.fragment>[],
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE ${posts} SET ${sql.join([...set, sql.fragment`updated_at = ${at}`, sql.fragment`version = version + 1`], sql.fragment`, `)}
    WHERE id = ${postId}`);
}

// Content changes of a live post set its editedAt; a draft or scheduled post is not "edited" yet.
const editedIfLive = (at: string) =>
  sql.fragment`edited_at = CASE WHEN status IN ('published', 'hidden') THEN ${at}::timestamptz ELSE edited_at END`;

async function applyOne(db: CommonQueryMethods, recorded: RecordedEvent, tables: PostTables): Promise<void> {
  const { channel_posts: posts, post_buttons: buttons, post_attachments: attachments } = tables;
  const event = postEventSchema.parse({ type: recorded.type, data: recorded.data });
  const postId = postOfStream(recorded.streamName);
  const { at } = event.data;
  switch (event.type) {
    case 'postDrafted': {
      const { channelId, text, commentsEnabled } = event.data;
      await db.query(sql.unsafe`
        INSERT INTO ${posts} (id, channel_id, status, text, comments_enabled, created_at, updated_at)
        VALUES (${postId}, ${channelId}, 'draft', ${text}, ${commentsEnabled}, ${at}, ${at})`);
      await replaceButtons(db, buttons, postId, event.data.buttons);
      return;
    }
    case 'postEdited': {
      const { text, commentsEnabled } = event.data;
      await update(db, posts, postId, at, [
        sql.fragment`text = COALESCE(${text ?? null}::text, text)`,
        sql.fragment`comments_enabled = COALESCE(${commentsEnabled ?? null}::boolean, comments_enabled)`,
        editedIfLive(at),
      ]);
      if (event.data.buttons) await replaceButtons(db, buttons, postId, event.data.buttons);
      return;
    }
    case 'postAttachmentAdded':
      await addAttachment(db, attachments, postId, event.data.attachment);
      await update(db, posts, postId, at, [editedIfLive(at)]);
      return;
    case 'postAttachmentRemoved':
      await db.query(sql.unsafe`
        DELETE FROM ${attachments} WHERE post_id = ${postId} AND id = ${event.data.attachmentId}`);
      await update(db, posts, postId, at, [editedIfLive(at)]);
      return;
    case 'postScheduled':
      await update(db, posts, postId, at, [
        sql.fragment`status = 'scheduled'`,
        sql.fragment`publish_at = ${event.data.publishAt}`,
        sql.fragment`notify = ${event.data.notify}`,
      ]);
      return;
    case 'postUnscheduled':
      await update(db, posts, postId, at, [
        sql.fragment`status = 'draft'`,
        sql.fragment`publish_at = NULL`,
        sql.fragment`notify = false`,
      ]);
      return;
    case 'postPublished':
      await update(db, posts, postId, at, [
        sql.fragment`status = 'published'`,
        sql.fragment`publish_at = NULL`,
        sql.fragment`notify = ${event.data.notify}`,
        sql.fragment`published_at = ${at}`,
      ]);
      return;
    case 'postHidden':
      await update(db, posts, postId, at, [sql.fragment`status = 'hidden'`]);
      return;
    case 'postUnhidden':
      await update(db, posts, postId, at, [sql.fragment`status = 'published'`]);
      return;
    case 'postDeleted':
      await update(db, posts, postId, at, [
        sql.fragment`status = 'deleted'`,
        sql.fragment`publish_at = NULL`,
      ]);
      return;
  }
}

// Post events one by one (they are few); the run's views together at the end, in two statements (views
// only name posts that were visible, so they come after their post in the log anyway).
async function applyPostEvents(
  db: CommonQueryMethods,
  events: readonly RecordedEvent[],
  tables: PostTables,
): Promise<void> {
  const views: { postId: string; userId: string; at: string }[] = [];
  for (const recorded of events) {
    if (recorded.type !== 'postsViewed') {
      await applyOne(db, recorded, tables);
      continue;
    }
    const { postIds, at } = postsViewed.shape.data.parse(recorded.data);
    const userId = userOfReaderStream(recorded);
    for (const postId of postIds) views.push({ postId, userId, at });
  }
  await countViews(db, tables, views);
}

/**
 * `channel_posts` (one row per post with its status and a `version` that moves with every change, which
 * the feed's ETag uses), `post_buttons` and `post_attachments`. Post events come from admins, a few at a
 * time, so each is applied on its own. `post_views` holds who viewed what; an erased user's rows go with
 * the erasure, and the posts' view counts keep them (decision 048).
 */
export const postsProjection: Projection<PostTable> = {
  name: 'posts',
  // 2: comment_count left for the comments projection's post_comment_counts.
  version: 2,
  categories: [POSTS_CATEGORY, VIEWS_CATEGORY, ERASURES],
  // Views are the bulk of all writes and their counts may show late anyway (FEED_COUNTS_LAG_MS).
  gatherMs: 200,
  tables: ['channel_posts', 'post_buttons', 'post_attachments', 'post_views'],

  async createTables(db, tables) {
    const { channel_posts: posts, post_buttons: buttons, post_attachments: attachments } = tables;
    await db.query(sql.unsafe`
      CREATE TABLE ${tables.post_views} (
        post_id uuid NOT NULL,
        user_id text NOT NULL,
        viewed_at timestamptz NOT NULL,
        PRIMARY KEY (post_id, user_id)
      )`);
    await db.query(sql.unsafe`
      CREATE TABLE ${posts} (
        id uuid PRIMARY KEY,
        channel_id uuid NOT NULL,
        status text NOT NULL,
        text text NOT NULL,
        comments_enabled boolean NOT NULL,
        publish_at timestamptz,
        notify boolean NOT NULL DEFAULT false,
        published_at timestamptz,
        edited_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        version integer NOT NULL DEFAULT 1,
        view_count integer NOT NULL DEFAULT 0
      )`);
    // The feed (published, newest first), the admin list by status, and the schedule job.
    await db.query(sql.unsafe`
      CREATE INDEX ON ${posts} (channel_id, published_at DESC, id DESC) WHERE status = 'published'`);
    await db.query(sql.unsafe`CREATE INDEX ON ${posts} (channel_id, status, created_at DESC, id DESC)`);
    await db.query(sql.unsafe`CREATE INDEX ON ${posts} (publish_at) WHERE status = 'scheduled'`);
    await db.query(sql.unsafe`
      CREATE TABLE ${buttons} (
        post_id uuid NOT NULL,
        id uuid NOT NULL,
        position integer NOT NULL,
        label text NOT NULL,
        url text NOT NULL,
        PRIMARY KEY (post_id, id)
      )`);
    await db.query(sql.unsafe`
      CREATE TABLE ${attachments} (
        post_id uuid NOT NULL,
        id uuid NOT NULL,
        position integer NOT NULL,
        kind text NOT NULL,
        storage_key text NOT NULL,
        content_type text NOT NULL,
        size bigint NOT NULL,
        width integer,
        height integer,
        duration_ms integer,
        PRIMARY KEY (post_id, id)
      )`);
  },

  async apply(db, events, tables) {
    await applyAroundErasures(
      events,
      (run) => applyPostEvents(db, run, tables),
      async (users) => {
        await db.query(sql.unsafe`
          DELETE FROM ${tables.post_views} WHERE user_id = ANY (${sql.array([...users], 'text')})`);
      },
    );
  },

  // Views name their channel; post events only their post, whose channel is in the table.
  async changes(db, events, tables) {
    const changed = new Set<string>();
    const posts: string[] = [];
    for (const recorded of events) {
      // The counts stay through an erasure; nothing a client reads moves.
      if (recorded.type === 'userErased') continue;
      if (recorded.type === 'postsViewed') {
        changed.add(scopes.counts(postsViewed.shape.data.parse(recorded.data).channelId));
        continue;
      }
      posts.push(postOfStream(recorded.streamName));
      if (publishing.has(recorded.type)) changed.add(scopes.published);
    }
    if (posts.length > 0) {
      const channels = await db.anyFirst(sql.type(channelRow)`
        SELECT DISTINCT channel_id FROM ${tables.channel_posts} WHERE id = ANY (${sql.array(posts, 'uuid')})`);
      for (const channel of channels) changed.add(scopes.feed(channel));
    }
    return [...changed];
  },
};

/** Post events that may change which posts are published. */
const publishing = new Set(['postPublished', 'postHidden', 'postUnhidden', 'postDeleted']);
const channelRow = z.object({ channel_id: z.string() });
