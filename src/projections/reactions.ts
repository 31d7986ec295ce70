import { sql } from 'slonik';
import { REACTIONS_CATEGORY, reactionEventSchema, userOfReactionsStream } from '../events/reactions.ts';
import type { Projection } from './projection.ts';
import { scopes } from './scopes.ts';

/**
 * `post_reactions` (who reacted with what: the `mine` of the feed) and `post_reaction_counts` (per post and
 * emoji, kept in step in the same transaction, so the feed reads counts without counting).
 */
export const reactionsProjection: Projection<'post_reactions' | 'post_reaction_counts'> = {
  name: 'reactions',
  version: 1,
  categories: [REACTIONS_CATEGORY],
  // Frequent small writes; the reacting user's route waits this long at most for its own `mine`.
  gatherMs: 100,
  tables: ['post_reactions', 'post_reaction_counts'],

  async createTables(db, { post_reactions: reactions, post_reaction_counts: counts }) {
    await db.query(sql.unsafe`
      CREATE TABLE ${reactions} (
        post_id uuid NOT NULL,
        user_id text NOT NULL,
        emoji text NOT NULL,
        reacted_at timestamptz NOT NULL,
        PRIMARY KEY (post_id, user_id, emoji)
      )`);
    await db.query(sql.unsafe`
      CREATE TABLE ${counts} (
        post_id uuid NOT NULL,
        emoji text NOT NULL,
        count integer NOT NULL CHECK (count >= 0),
        PRIMARY KEY (post_id, emoji)
      )`);
  },

  async apply(db, events, { post_reactions: reactions, post_reaction_counts: counts }) {
    for (const recorded of events) {
      const event = reactionEventSchema.parse({ type: recorded.type, data: recorded.data });
      const userId = userOfReactionsStream(recorded.streamName);
      const { postId, emoji, at } = event.data;
      // The count moves only when the row did, so the two never disagree.
      const changed =
        event.type === 'reactionAdded'
          ? await db.query(sql.unsafe`
              INSERT INTO ${reactions} (post_id, user_id, emoji, reacted_at) VALUES (${postId}, ${userId}, ${emoji}, ${at})
              ON CONFLICT DO NOTHING`)
          : await db.query(sql.unsafe`
              DELETE FROM ${reactions} WHERE post_id = ${postId} AND user_id = ${userId} AND emoji = ${emoji}`);
      if (changed.rowCount === 0) continue;
      const delta = event.type === 'reactionAdded' ? 1 : -1;
      await db.query(sql.unsafe`
        INSERT INTO ${counts} (post_id, emoji, count) VALUES (${postId}, ${emoji}, ${Math.max(delta, 0)})
        ON CONFLICT (post_id, emoji) DO UPDATE SET count = ${counts}.count + ${delta}`);
    }
  },

  changes: (_db, events) =>
    events.flatMap((recorded) => {
      const { channelId } = reactionEventSchema.parse({ type: recorded.type, data: recorded.data }).data;
      return [scopes.counts(channelId), scopes.reactionsOf(userOfReactionsStream(recorded.streamName))];
    }),
};
