import { type CommonQueryMethods, type SerializableValue, sql } from 'slonik';
import { z } from 'zod';
import {
  COMMENTS_CATEGORY,
  commentEventSchema,
  commentOfStream,
  commentPosted,
  type ModeratorRef,
} from '../events/comments.ts';
import type { RecordedEvent } from '../events/envelope.ts';
import {
  channelOfModerationStream,
  MODERATION_CATEGORY,
  moderationEventSchema,
} from '../events/moderation.ts';
import { applyAroundErasures, ERASURES } from './erasures.ts';
import { channelsOfErasedModerators, eraseModerated } from './moderation-erasures.ts';
import type { Projection, Tables } from './projection.ts';
import { scopes } from './scopes.ts';

type ModerationTable =
  'comment_bans' | 'comment_moderators' | 'comment_moderation_events' | 'moderated_comments';
type ModerationTables = Tables<ModerationTable>;

/** One row of the moderation history: who did what to whom, and why. */
interface HistoryRow {
  readonly action: string;
  /** `id` null once the user who acted (a reporter, a refused poster) was erased. */
  readonly actor: { readonly type: string; readonly id: string | null };
  readonly channelId: string;
  readonly postId?: string | null;
  readonly commentId?: string | null;
  /** The user the action is about: the author, the banned user, the moderator, the reporter. */
  readonly userId?: string | null;
  readonly reason?: string | null;
  /** What else the action needs to be understood (a rule and its threshold, a rejection's snippet). */
  readonly detail?: Record<string, SerializableValue>;
  readonly at: string;
}

const actorOf = (by: ModeratorRef) => ({ type: by.type, id: by.id });

/**
 * `comment_bans` and `comment_moderators` (the current state of a channel's moderation) and
 * `comment_moderation_events`, the history auditors filter: every moderation event of both stream
 * families, with its actor. A rejection's row holds the redacted snippet and keyed hash, never the text.
 * `moderated_comments` keeps each comment's channel, post and author, which later comment events do not
 * repeat. Erased users are forgotten as `moderation-erasures.ts` says.
 */
export const moderationProjection: Projection<ModerationTable> = {
  name: 'moderation',
  // 2: what an erasure makes NULL.
  version: 2,
  categories: [COMMENTS_CATEGORY, MODERATION_CATEGORY, ERASURES],
  // It reads every comment for the moderators' views, which no poll waits for.
  gatherMs: 100,
  // A comment's text is never kept here: only who wrote it where.
  unopened: ['commentPosted'],
  tables: ['comment_bans', 'comment_moderators', 'comment_moderation_events', 'moderated_comments'],

  async createTables(db, tables) {
    await db.query(sql.unsafe`
      CREATE TABLE ${tables.comment_bans} (
        channel_id uuid NOT NULL,
        user_id text NOT NULL,
        until timestamptz,
        reason text,
        banned_by_type text NOT NULL,
        banned_by_id text NOT NULL,
        banned_at timestamptz NOT NULL,
        PRIMARY KEY (channel_id, user_id)
      )`);
    await db.query(sql.unsafe`
      CREATE TABLE ${tables.comment_moderators} (
        channel_id uuid NOT NULL,
        user_id text NOT NULL,
        assigned_at timestamptz NOT NULL,
        PRIMARY KEY (channel_id, user_id)
      )`);
    await db.query(sql.unsafe`
      CREATE TABLE ${tables.comment_moderation_events} (
        event_id uuid PRIMARY KEY,
        seq bigint NOT NULL UNIQUE,
        channel_id uuid NOT NULL,
        post_id uuid,
        comment_id uuid,
        user_id text,
        action text NOT NULL,
        actor_type text NOT NULL,
        actor_id text,
        reason text,
        detail jsonb NOT NULL DEFAULT '{}',
        occurred_at timestamptz NOT NULL
      )`);
    const events = tables.comment_moderation_events;
    await db.query(sql.unsafe`CREATE INDEX ON ${events} (channel_id, seq DESC)`);
    await db.query(sql.unsafe`CREATE INDEX ON ${events} (comment_id, seq DESC)`);
    await db.query(sql.unsafe`CREATE INDEX ON ${events} (user_id, seq DESC)`);
    // For erasures: what a user did as a user (reported, was refused).
    await db.query(sql.unsafe`CREATE INDEX ON ${events} (actor_id) WHERE actor_type = 'user'`);
    await db.query(sql.unsafe`
      CREATE TABLE ${tables.moderated_comments} (
        id uuid PRIMARY KEY,
        channel_id uuid NOT NULL,
        post_id uuid NOT NULL,
        author_id text
      )`);
    await db.query(sql.unsafe`CREATE INDEX ON ${tables.moderated_comments} (author_id)`);
  },

  async apply(db, events, tables) {
    await applyAroundErasures(
      events,
      (run) => applyRun(db, tables, run),
      (users) => eraseModerated(db, tables, users),
    );
  },

  // Comment events change what the comments projection holds, not what clients read from here.
  async changes(db, events, tables) {
    const channels = events
      .filter((recorded) => recorded.streamName.startsWith(`${MODERATION_CATEGORY}-`))
      .map((recorded) => channelOfModerationStream(recorded.streamName));
    if (events.some((recorded) => recorded.type === 'userErased')) {
      channels.push(...(await channelsOfErasedModerators(db, tables)));
    }
    return [...new Set(channels)].map(scopes.moderators);
  },
};

async function applyRun(
  db: CommonQueryMethods,
  tables: ModerationTables,
  events: readonly RecordedEvent[],
): Promise<void> {
  // New comments are only indexed here: each run of them goes in one statement.
  let posted: { id: string; channelId: string; postId: string; authorId: string }[] = [];
  for (const recorded of events) {
    if (recorded.type === 'commentPosted') {
      const { channelId, postId, authorId } = commentPosted.shape.data.parse(recorded.data);
      posted.push({ id: commentOfStream(recorded.streamName), channelId, postId, authorId });
      continue;
    }
    await indexComments(db, tables, posted);
    posted = [];
    const row = recorded.streamName.startsWith(`${MODERATION_CATEGORY}-`)
      ? await channelEvent(db, tables, recorded)
      : await commentEvent(db, tables, recorded);
    if (row) await record(db, tables, recorded, row);
  }
  await indexComments(db, tables, posted);
}

async function indexComments(
  db: CommonQueryMethods,
  tables: ModerationTables,
  rows: readonly { id: string; channelId: string; postId: string; authorId: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO ${tables.moderated_comments} (id, channel_id, post_id, author_id)
    SELECT i::uuid, c::uuid, p::uuid, a
    FROM unnest(${sql.array(
      rows.map((r) => r.id),
      'text',
    )}, ${sql.array(
      rows.map((r) => r.channelId),
      'text',
    )}, ${sql.array(
      rows.map((r) => r.postId),
      'text',
    )}, ${sql.array(
      rows.map((r) => r.authorId),
      'text',
    )}) AS x (i, c, p, a)
    ON CONFLICT DO NOTHING`);
}

async function record(
  db: CommonQueryMethods,
  tables: ModerationTables,
  recorded: RecordedEvent,
  row: HistoryRow,
): Promise<void> {
  const table = tables.comment_moderation_events;
  await db.query(sql.unsafe`
    INSERT INTO ${table} (event_id, seq, channel_id, post_id, comment_id, user_id, action, actor_type, actor_id,
      reason, detail, occurred_at)
    VALUES (${recorded.id}, (SELECT COALESCE(max(seq), 0) + 1 FROM ${table}), ${row.channelId},
      ${row.postId ?? null}, ${row.commentId ?? null}, ${row.userId ?? null}, ${row.action}, ${row.actor.type},
      ${row.actor.id}, ${row.reason ?? null}, ${sql.jsonb(row.detail ?? {})}, ${row.at})
    ON CONFLICT (event_id) DO NOTHING`);
}

async function channelEvent(
  db: CommonQueryMethods,
  tables: ModerationTables,
  recorded: RecordedEvent,
): Promise<HistoryRow | null> {
  const event = moderationEventSchema.parse({ type: recorded.type, data: recorded.data });
  const channelId = channelOfModerationStream(recorded.streamName);
  const { comment_bans: bans, comment_moderators: moderators } = tables;
  switch (event.type) {
    case 'userBanned': {
      const { userId, until, reason, by, at } = event.data;
      await db.query(sql.unsafe`
        INSERT INTO ${bans} (channel_id, user_id, until, reason, banned_by_type, banned_by_id, banned_at)
        VALUES (${channelId}, ${userId}, ${until}, ${reason}, ${by.type}, ${by.id}, ${at})
        ON CONFLICT (channel_id, user_id) DO UPDATE SET until = EXCLUDED.until, reason = EXCLUDED.reason,
          banned_by_type = EXCLUDED.banned_by_type, banned_by_id = EXCLUDED.banned_by_id, banned_at = EXCLUDED.banned_at`);
      return { action: 'user_banned', actor: actorOf(by), channelId, userId, reason, detail: { until }, at };
    }
    case 'banLifted': {
      const { userId, by, at } = event.data;
      await db.query(sql.unsafe`DELETE FROM ${bans} WHERE channel_id = ${channelId} AND user_id = ${userId}`);
      return { action: 'ban_lifted', actor: actorOf(by), channelId, userId, at };
    }
    case 'moderatorAssigned': {
      const { userId, by, at } = event.data;
      await db.query(sql.unsafe`
        INSERT INTO ${moderators} (channel_id, user_id, assigned_at) VALUES (${channelId}, ${userId}, ${at})
        ON CONFLICT DO NOTHING`);
      return { action: 'moderator_assigned', actor: actorOf(by), channelId, userId, at };
    }
    case 'moderatorRevoked': {
      const { userId, by, at } = event.data;
      await db.query(sql.unsafe`
        DELETE FROM ${moderators} WHERE channel_id = ${channelId} AND user_id = ${userId}`);
      return { action: 'moderator_revoked', actor: actorOf(by), channelId, userId, at };
    }
    case 'commentRejected': {
      const { postId, userId, kind, snippet, hash, at } = event.data;
      return {
        action: 'comment_rejected',
        actor: { type: 'user', id: userId },
        channelId,
        postId,
        userId,
        detail: { kind, snippet, hash },
        at,
      };
    }
  }
}

async function commentEvent(
  db: CommonQueryMethods,
  tables: ModerationTables,
  recorded: RecordedEvent,
): Promise<HistoryRow | null> {
  const event = commentEventSchema.parse({ type: recorded.type, data: recorded.data });
  const commentId = commentOfStream(recorded.streamName);
  const index = tables.moderated_comments;
  // New comments are indexed by `apply` before any later event of theirs comes here.
  if (event.type === 'commentDeletedByAuthor' || event.type === 'commentPosted') return null;
  const comment = await db.maybeOne(
    sql.type(
      z.object({ channelId: z.string(), postId: z.string(), userId: z.string().nullable() }),
    )`SELECT channel_id AS "channelId", post_id AS "postId", author_id AS "userId" FROM ${index} WHERE id = ${commentId}`,
  );
  if (!comment) throw new Error(`comment ${commentId} has events before it was posted`);
  const about = { ...comment, commentId };
  const { at } = event.data;
  switch (event.type) {
    case 'commentHidden':
      return {
        ...about,
        action: 'comment_hidden',
        actor: actorOf(event.data.by),
        reason: event.data.reason,
        at,
      };
    case 'commentUnhidden':
      return { ...about, action: 'comment_unhidden', actor: actorOf(event.data.by), at };
    case 'commentDeleted':
      return {
        ...about,
        action: 'comment_deleted',
        actor: actorOf(event.data.by),
        reason: event.data.reason,
        at,
      };
    case 'commentReported': {
      const { reportId, reporterId, reason, note } = event.data;
      return {
        ...about,
        action: 'comment_reported',
        actor: { type: 'user', id: reporterId },
        reason,
        detail: { reportId, ...(note === undefined ? {} : { note }) },
        at,
      };
    }
    case 'commentAutoHidden': {
      const { rule, threshold, reports } = event.data;
      return {
        ...about,
        action: 'comment_auto_hidden',
        actor: { type: 'system', id: rule },
        detail: { rule, threshold, reports },
        at,
      };
    }
    case 'reportsResolved': {
      const { reportIds, action, by } = event.data;
      return { ...about, action: 'reports_resolved', actor: actorOf(by), detail: { reportIds, action }, at };
    }
  }
}
