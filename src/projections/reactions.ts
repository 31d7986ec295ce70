import { type CommonQueryMethods, sql } from 'slonik';
import type { RecordedEvent } from '../events/envelope.ts';
import { erasedUsers } from '../events/privacy.ts';
import { REACTIONS_CATEGORY, reactionEventSchema, userOfReactionsStream } from '../events/reactions.ts';
import { applyAroundErasures, ERASURES } from './erasures.ts';
import type { Projection, Tables } from './projection.ts';
import { scopes } from './scopes.ts';

/**
 * `post_reactions` (who reacted with what: the `mine` of the feed) and `post_reaction_counts` (per post and
 * emoji, kept in step in the same transaction, so the feed reads counts without counting). An erased
 * user's reactions leave `post_reactions`; the counts keep them (decision 048).
 */
export const reactionsProjection: Projection<'post_reactions' | 'post_reaction_counts'> = {
  name: 'reactions',
  version: 1,
  categories: [REACTIONS_CATEGORY, ERASURES],
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

  async apply(db, events, tables) {
    await applyAroundErasures(
      events,
      (run) => applyReactionEvents(db, run, tables),
      async (users) => {
        await db.query(sql.unsafe`
          DELETE FROM ${tables.post_reactions} WHERE user_id = ANY (${sql.array([...users], 'text')})`);
      },
    );
  },

  changes: (_db, events) => [
    ...events
      .filter((recorded) => recorded.type !== 'userErased')
      .flatMap((recorded) => {
        const { channelId } = reactionEventSchema.parse({ type: recorded.type, data: recorded.data }).data;
        return [scopes.counts(channelId), scopes.reactionsOf(userOfReactionsStream(recorded.streamName))];
      }),
    ...erasedUsers(events).map(scopes.reactionsOf),
  ],
};

async function applyReactionEvents(
  db: CommonQueryMethods,
  events: readonly RecordedEvent[],
  {
    post_reactions: reactions,
    post_reaction_counts: counts,
  }: Tables<'post_reactions' | 'post_reaction_counts'>,
): Promise<void> {
  for (const recorded of events) {
    const event = reactionEventSchema.parse({ type: recorded.type, data: recorded.data });
    const userId = userOfReactionsStream(recorded.streamName);
    const { postId, emoji, at } = event.data;
    // The count moves only when the row did, so it is never counted twice (an erasure takes rows, not counts).
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
}
