import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { Tables } from './projection.ts';

type ModerationTables = Tables<
  'comment_bans' | 'comment_moderators' | 'comment_moderation_events' | 'moderated_comments'
>;

/**
 * Forgets erased users in the moderation tables (decision 048). Their bans and moderator roles go: the same
 * host id later is a new user. The history keeps what happened but no longer says to whom, nor what was
 * theirs (a ban's reason, a refused comment's snippet, a report's note); the reasons moderators gave for
 * hiding or deleting stay, being the moderators' record, not the user's.
 */
export async function eraseModerated(
  db: CommonQueryMethods,
  tables: ModerationTables,
  userIds: readonly string[],
): Promise<void> {
  const users = sql.array([...userIds], 'text');
  const { comment_moderation_events: history } = tables;
  await db.query(sql.unsafe`DELETE FROM ${tables.comment_bans} WHERE user_id = ANY (${users})`);
  await db.query(sql.unsafe`DELETE FROM ${tables.comment_moderators} WHERE user_id = ANY (${users})`);
  await db.query(sql.unsafe`
    UPDATE ${tables.moderated_comments} SET author_id = NULL WHERE author_id = ANY (${users})`);
  // Every SET reads the row as it was, so each case still sees whose the row was.
  const about = sql.fragment`user_id = ANY (${users})`;
  const by = sql.fragment`(actor_type = 'user' AND actor_id = ANY (${users}))`;
  await db.query(sql.unsafe`
    UPDATE ${history} SET
      user_id = CASE WHEN ${about} THEN NULL ELSE user_id END,
      actor_id = CASE WHEN ${by} THEN NULL ELSE actor_id END,
      reason = CASE WHEN action = 'user_banned' AND ${about} THEN NULL ELSE reason END,
      detail = CASE
        WHEN action = 'comment_rejected' AND ${about} THEN detail - 'snippet'
        WHEN action = 'comment_reported' AND ${by} THEN detail - 'note'
        ELSE detail END
    WHERE ${about} OR ${by}`);
}

/**
 * The channels an erasure may have taken a comment moderator from: those with a moderator erased, ever.
 * Few, and their moderators' scope moves only when a batch erases someone.
 */
export async function channelsOfErasedModerators(
  db: CommonQueryMethods,
  tables: ModerationTables,
): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ channel_id: z.string() }))`
    SELECT DISTINCT channel_id FROM ${tables.comment_moderation_events}
    WHERE user_id IS NULL AND action = 'moderator_assigned'`);
}
