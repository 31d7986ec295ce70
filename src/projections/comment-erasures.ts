import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { RecordedEvent } from '../events/envelope.ts';
import { userErased } from '../events/privacy.ts';
import type { Tables } from './projection.ts';

type CommentTables = Tables<'channel_comments' | 'comment_attachments' | 'comment_reports'>;

/** One erasure as the comments projection applies it: whose, and when (the rows' new `updated_at`). */
export interface Erasure {
  readonly userId: string;
  readonly at: string;
}

/** A batch's erasures, in log order. */
export const erasuresOf = (events: readonly RecordedEvent[]): Erasure[] =>
  events
    .filter((e) => e.type === 'userErased')
    .map((e) => {
      const { userId, at } = userErased.shape.data.parse(e.data);
      return { userId, at };
    });

const seqRow = z.object({ seq: z.coerce.number().nullable() });

/**
 * Detaches erased users from their comments and reports (decision 048): a comment keeps its place, status
 * and count but loses its author, text and picture row (the erasure deletes the file); a report keeps its
 * reason but loses its reporter and note. An erased comment takes a new change number, in the order of
 * the erasures and then of the comments, so open threads' polls hear of it; a rebuild numbers it the same.
 * Returns the last number taken (`seq` when none was).
 */
export async function eraseCommenters(
  db: CommonQueryMethods,
  tables: CommentTables,
  erasures: readonly Erasure[],
  seq: number | null,
): Promise<number | null> {
  // A user erased twice in a row: the second finds nothing left, as it would applied on its own.
  const first = erasures.filter((e, i) => erasures.findIndex((o) => o.userId === e.userId) === i);
  if (first.length === 0) return seq;
  const users = sql.array(
    first.map((e) => e.userId),
    'text',
  );
  const ats = sql.array(
    first.map((e) => e.at),
    'text',
  );
  const { channel_comments: comments, comment_attachments: attachments } = tables;
  const last = await db.oneFirst(sql.type(seqRow)`
    WITH erased AS (
      SELECT c.id, x.at, row_number() OVER (ORDER BY x.n, c.change_seq) AS o
      FROM ${comments} c JOIN unnest(${users}, ${ats}) WITH ORDINALITY AS x (u, at, n) ON c.author_id = x.u
    ), base AS (
      SELECT COALESCE(${seq}::bigint, (SELECT max(change_seq) FROM ${comments}), 0) AS seq
    ), updated AS (
      UPDATE ${comments} c
      SET author_id = NULL, text = NULL, updated_at = e.at::timestamptz, change_seq = base.seq + e.o
      FROM erased e, base WHERE c.id = e.id
      RETURNING c.id, c.change_seq
    ), pictures AS (
      DELETE FROM ${attachments} a USING updated u WHERE a.comment_id = u.id
    )
    SELECT max(change_seq) AS seq FROM updated`);
  await db.query(sql.unsafe`
    UPDATE ${tables.comment_reports} SET reporter_id = NULL, note = NULL WHERE reporter_id = ANY (${users})`);
  return last ?? seq;
}

/** The posts whose threads a batch's erasures changed: their comments erased at those instants. */
export async function erasedThreads(
  db: CommonQueryMethods,
  tables: CommentTables,
  erasures: readonly Erasure[],
): Promise<readonly string[]> {
  if (erasures.length === 0) return [];
  return db.anyFirst(sql.type(z.object({ post_id: z.string() }))`
    SELECT DISTINCT post_id FROM ${tables.channel_comments}
    WHERE author_id IS NULL AND updated_at = ANY (${sql.array(
      erasures.map((e) => e.at),
      'timestamptz',
    )})`);
}
