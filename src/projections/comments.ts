import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import {
  COMMENTS_CATEGORY,
  type CommentEvent,
  commentEventSchema,
  commentOfStream,
  commentPosted,
} from '../events/comments.ts';
import type { RecordedEvent } from '../events/envelope.ts';
import { eraseCommenters, erasedThreads, erasuresOf } from './comment-erasures.ts';
import { applyAroundErasures, ERASURES } from './erasures.ts';
import type { Projection, Tables } from './projection.ts';
import { scopes } from './scopes.ts';

type CommentTable = 'channel_comments' | 'comment_attachments' | 'comment_reports' | 'post_comment_counts';
type CommentTables = Tables<CommentTable>;

/**
 * What clients and moderators read of comments: `channel_comments` (with a per-projection change counter
 * for the poll's `since` cursor), `comment_attachments`, `comment_reports` and `post_comment_counts`
 * (visible comments per post, for the feed).
 *
 * `change_seq` is the order in which this projection changed rows: max + 1 of the table, assigned by the
 * projection's single writer. It depends only on the order of the log, so a rebuild gives every row the
 * same number and clients' cursors survive it.
 *
 * An erased user's comments keep their place and status but lose author and text (NULL), and their
 * reports lose reporter and note (decision 048, `comment-erasures.ts`).
 */
export const commentsProjection: Projection<CommentTable> = {
  name: 'comments',
  // 2: author, text and reporter are NULL once erased.
  version: 2,
  categories: [COMMENTS_CATEGORY, ERASURES],
  // No gathering: the posting route waits for this projection, and comments come a few at a time anyway.
  gatherMs: 0,
  tables: ['channel_comments', 'comment_attachments', 'comment_reports', 'post_comment_counts'],

  async createTables(db, tables) {
    const { channel_comments: comments, comment_reports: reports } = tables;
    await db.query(sql.unsafe`
      CREATE TABLE ${comments} (
        id uuid PRIMARY KEY,
        channel_id uuid NOT NULL,
        post_id uuid NOT NULL,
        author_id text,
        text text,
        status text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        change_seq bigint NOT NULL UNIQUE
      )`);
    // The poll (a post's changes after a cursor; the latest visible page) and the admin list.
    await db.query(sql.unsafe`CREATE INDEX ON ${comments} (post_id, change_seq)`);
    await db.query(
      sql.unsafe`CREATE INDEX ON ${comments} (post_id, created_at DESC, id DESC) WHERE status = 'visible'`,
    );
    await db.query(sql.unsafe`CREATE INDEX ON ${comments} (channel_id, created_at DESC, id DESC)`);
    // An erasure finds its user's comments, and then the threads it changed (erased rows at its instant).
    await db.query(sql.unsafe`CREATE INDEX ON ${comments} (author_id, updated_at)`);
    await db.query(sql.unsafe`
      CREATE TABLE ${tables.comment_attachments} (
        comment_id uuid PRIMARY KEY,
        storage_key text NOT NULL,
        content_type text NOT NULL,
        size bigint NOT NULL,
        width integer,
        height integer
      )`);
    await db.query(sql.unsafe`
      CREATE TABLE ${reports} (
        id uuid PRIMARY KEY,
        comment_id uuid NOT NULL,
        channel_id uuid NOT NULL,
        post_id uuid NOT NULL,
        reporter_id text,
        reason text NOT NULL,
        note text,
        status text NOT NULL,
        action text,
        resolved_by_type text,
        resolved_by_id text,
        created_at timestamptz NOT NULL,
        resolved_at timestamptz,
        UNIQUE (comment_id, reporter_id)
      )`);
    await db.query(sql.unsafe`CREATE INDEX ON ${reports} (status, created_at, id)`);
    await db.query(sql.unsafe`CREATE INDEX ON ${reports} (reporter_id)`);
    await db.query(sql.unsafe`
      CREATE TABLE ${tables.post_comment_counts} (
        post_id uuid PRIMARY KEY,
        count integer NOT NULL CHECK (count >= 0)
      )`);
  },

  async apply(db, events, tables) {
    // The last number taken, read when first needed: a run of new comments at the start of a batch
    // (the usual batch under load) reads it inside its own statement.
    let seq: number | null = null;
    // Each call of `erase` takes the next erasures of the batch, in log order.
    const erasures = erasuresOf(events);
    await applyAroundErasures(
      events,
      async (run) => {
        seq = await applyRun(db, tables, run, seq);
      },
      async (users) => {
        seq = await eraseCommenters(db, tables, erasures.splice(0, users.length), seq);
      },
    );
  },

  // A new comment names its post and channel; later events name only the comment, found in the table.
  async changes(db, events, tables) {
    const changed = new Set<string>();
    const others: string[] = [];
    for (const post of await erasedThreads(db, tables, erasuresOf(events))) changed.add(scopes.thread(post));
    for (const recorded of events) {
      if (recorded.type === 'userErased') continue;
      if (recorded.type !== 'commentPosted') {
        others.push(commentOfStream(recorded.streamName));
        continue;
      }
      const { channelId, postId } = commentPosted.shape.data.parse(recorded.data);
      changed.add(scopes.thread(postId)).add(scopes.counts(channelId));
    }
    if (others.length > 0) {
      const places = await db.any(sql.type(placeRow)`
        SELECT DISTINCT channel_id, post_id FROM ${tables.channel_comments}
        WHERE id = ANY (${sql.array(others, 'uuid')})`);
      for (const { channel_id: channel, post_id: post } of places) {
        changed.add(scopes.thread(post)).add(scopes.counts(channel));
      }
    }
    return [...changed];
  },
};

const placeRow = z.object({ channel_id: z.string(), post_id: z.string() });

/**
 * Applies a run of comment events, numbering on from `seq`; returns the last number taken. Only events
 * that change a comment's row take a number, so the numbering does not depend on where batches happen to
 * end. New comments, the bulk of the log, are written together: each run of them in one statement (and
 * one per picture), before the next event of another kind.
 */
async function applyRun(
  db: CommonQueryMethods,
  tables: CommentTables,
  events: readonly RecordedEvent[],
  from: number | null,
): Promise<number | null> {
  let seq = from;
  let posted: NewComment[] = [];
  for (const recorded of events) {
    if (recorded.type === 'commentPosted') {
      posted.push({
        id: commentOfStream(recorded.streamName),
        ...commentPosted.shape.data.parse(recorded.data),
      });
      continue;
    }
    seq = await insertComments(db, tables, posted, seq);
    posted = [];
    seq ??= await lastSeq(db, tables);
    if (await applyOne(db, tables, recorded, seq + 1)) seq += 1;
  }
  return insertComments(db, tables, posted, seq);
}

type NewComment = z.infer<typeof commentPosted.shape.data> & { readonly id: string };

const seqRow = z.object({ seq: z.coerce.number() });

const lastSeq = (db: CommonQueryMethods, tables: CommentTables): Promise<number> =>
  db.oneFirst(sql.type(seqRow)`SELECT COALESCE(max(change_seq), 0) AS seq FROM ${tables.channel_comments}`);

/**
 * Inserts a run of new comments, numbered on from `seq` (from the table's highest number when null) in
 * the order given, and counts them per post, in one statement. Returns the last number taken.
 *
 * A comment whose text reads as null (its author erased) keeps the author's id until the erasure, later in
 * the log, detaches it and numbers it anew: so a rebuild numbers every row as the live tables did.
 */
async function insertComments(
  db: CommonQueryMethods,
  tables: CommentTables,
  rows: readonly NewComment[],
  seq: number | null,
): Promise<number | null> {
  if (rows.length === 0) return seq;
  const { channel_comments: comments, post_comment_counts: counts } = tables;
  const column = (pick: (row: NewComment) => string | null) => sql.array(rows.map(pick), 'text');
  const last = await db.oneFirst(sql.type(seqRow)`
    WITH inserted AS (
      INSERT INTO ${comments}
        (id, channel_id, post_id, author_id, text, status, created_at, updated_at, change_seq)
      SELECT i::uuid, c::uuid, p::uuid, a, t, 'visible', at::timestamptz, at::timestamptz, base.seq + o
      FROM unnest(${column((r) => r.id)}, ${column((r) => r.channelId)}, ${column((r) => r.postId)},
          ${column((r) => r.authorId)}, ${column((r) => r.text)}, ${column((r) => r.at)})
          WITH ORDINALITY AS x (i, c, p, a, t, at, o),
        (SELECT COALESCE(${seq}::bigint, (SELECT max(change_seq) FROM ${comments}), 0) AS seq) AS base
      RETURNING post_id, change_seq
    ), counted AS (
      INSERT INTO ${counts} (post_id, count)
      SELECT post_id, count(*) FROM inserted GROUP BY post_id
      ON CONFLICT (post_id) DO UPDATE SET count = ${counts}.count + EXCLUDED.count
    )
    SELECT max(change_seq) AS seq FROM inserted`);
  for (const r of rows) {
    // Text read as null: its author was erased, and the picture's file with them.
    if (!r.image || r.text === null) continue;
    const { storageKey, contentType, size, width, height } = r.image;
    await db.query(sql.unsafe`
      INSERT INTO ${tables.comment_attachments} (comment_id, storage_key, content_type, size, width, height)
      VALUES (${r.id}, ${storageKey}, ${contentType}, ${size}, ${width ?? null}, ${height ?? null})`);
  }
  return last;
}

/** +1 when a comment becomes visible, -1 when it stops being so. */
function visibleDelta(event: CommentEvent): number {
  switch (event.type) {
    case 'commentPosted':
    case 'commentUnhidden':
      return 1;
    case 'commentHidden':
    case 'commentAutoHidden':
      return -1;
    case 'commentDeleted':
    case 'commentDeletedByAuthor':
      return event.data.previousStatus === 'visible' ? -1 : 0;
    case 'commentReported':
    case 'reportsResolved':
      return 0;
  }
}

function statusAfter(event: CommentEvent): string | null {
  switch (event.type) {
    case 'commentHidden':
    case 'commentAutoHidden':
      return 'hidden';
    case 'commentUnhidden':
      return 'visible';
    case 'commentDeleted':
    case 'commentDeletedByAuthor':
      return 'deleted';
    default:
      return null;
  }
}

async function applyOne(
  db: CommonQueryMethods,
  tables: CommentTables,
  recorded: RecordedEvent,
  seq: number,
): Promise<boolean> {
  const event = commentEventSchema.parse({ type: recorded.type, data: recorded.data });
  const id = commentOfStream(recorded.streamName);
  const { channel_comments: comments, comment_reports: reports } = tables;
  if (event.type === 'commentReported') {
    const { reportId, reporterId, reason, note, at } = event.data;
    await db.query(sql.unsafe`
      INSERT INTO ${reports} (id, comment_id, channel_id, post_id, reporter_id, reason, note, status, created_at)
      SELECT ${reportId}, c.id, c.channel_id, c.post_id, ${reporterId}, ${reason}, ${note ?? null}, 'open', ${at}
      FROM ${comments} c WHERE c.id = ${id}`);
  } else if (event.type === 'reportsResolved') {
    const { reportIds, action, by, at } = event.data;
    await db.query(sql.unsafe`
      UPDATE ${reports} SET status = 'resolved', action = ${action}, resolved_by_type = ${by.type},
        resolved_by_id = ${by.id}, resolved_at = ${at}
      WHERE id = ANY (${sql.array(reportIds, 'uuid')})`);
  }
  await countVisible(db, tables, id, visibleDelta(event));
  const status = statusAfter(event);
  if (status === null) return false;
  await db.query(sql.unsafe`
    UPDATE ${comments} SET status = ${status}, updated_at = ${event.data.at}, change_seq = ${seq}
    WHERE id = ${id}`);
  return true;
}

async function countVisible(
  db: CommonQueryMethods,
  tables: CommentTables,
  id: string,
  delta: number,
): Promise<void> {
  if (delta === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO ${tables.post_comment_counts} (post_id, count)
    SELECT post_id, ${Math.max(delta, 0)} FROM ${tables.channel_comments} WHERE id = ${id}
    ON CONFLICT (post_id) DO UPDATE SET count = ${tables.post_comment_counts}.count + ${delta}`);
}
