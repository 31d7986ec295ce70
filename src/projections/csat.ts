import { type CommonQueryMethods, sql } from 'slonik';
import { CSAT_CATEGORY, csatEventSchema } from '../events/csat.ts';
import type { RecordedEvent } from '../events/envelope.ts';
import { erasedUsers } from '../events/privacy.ts';
import { applyAroundErasures, ERASURES } from './erasures.ts';
import type { Projection, Tables } from './projection.ts';

/**
 * The change-feed scope of one user's ratings (decision 022's stamps): the `rated` overlay of their
 * conversation and ticket polls keys on it, so a poll reads `csat_ratings` again only after they rated.
 */
export const csatScope = (userId: string): string => `csat:${userId}`;

const ratingOf = (recorded: RecordedEvent) =>
  csatEventSchema.parse({ type: recorded.type, data: recorded.data }).data;

/**
 * `csat_ratings`: one row per rated conversation or ticket, for the `rated` overlay of the user's polls and
 * the admin list, summary and daily series (decision 029). An erased user's ratings stay, counted, without
 * their user or comment (decision 048).
 */
export const csatProjection: Projection<'csat_ratings'> = {
  name: 'csat',
  // 2: user_id nullable (erasure).
  version: 2,
  categories: [CSAT_CATEGORY, ERASURES],
  tables: ['csat_ratings'],

  async createTables(db, { csat_ratings: ratings }) {
    await db.query(sql.unsafe`
      CREATE TABLE ${ratings} (
        id uuid PRIMARY KEY,
        user_id text,
        target_type text NOT NULL CHECK (target_type IN ('conversation', 'ticket')),
        target_id text NOT NULL,
        rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
        comment text,
        rated_at timestamptz NOT NULL,
        UNIQUE (target_type, target_id)
      )`);
    // The admin list pages newest first; the overlay reads one user's rows.
    await db.query(sql.unsafe`CREATE INDEX ON ${ratings} (rated_at DESC, id DESC)`);
    await db.query(sql.unsafe`CREATE INDEX ON ${ratings} (user_id)`);
  },

  async apply(db, events, tables) {
    await applyAroundErasures(
      events,
      (run) => insertRatings(db, run, tables),
      async (users) => {
        await db.query(sql.unsafe`
          UPDATE ${tables.csat_ratings} SET user_id = NULL, comment = NULL
          WHERE user_id = ANY (${sql.array([...users], 'text')})`);
      },
    );
  },

  // An erased user's overlay empties: their scope moves too.
  changes: (_db, events) => [
    ...events.filter((e) => e.type !== 'userErased').map((recorded) => csatScope(ratingOf(recorded).userId)),
    ...erasedUsers(events).map(csatScope),
  ],
};

async function insertRatings(
  db: CommonQueryMethods,
  events: readonly RecordedEvent[],
  { csat_ratings: ratings }: Tables<'csat_ratings'>,
): Promise<void> {
  const rows = events.map((recorded) => ratingOf(recorded));
  if (rows.length === 0) return;
  // The decider lets one rating into each target's stream; DO NOTHING only guards a replayed batch.
  await db.query(sql.unsafe`
    INSERT INTO ${ratings} (id, user_id, target_type, target_id, rating, comment, rated_at)
    SELECT * FROM unnest(
      ${sql.array(
        rows.map((r) => r.ratingId),
        'uuid',
      )}, ${sql.array(
        rows.map((r) => r.userId),
        'text',
      )}, ${sql.array(
        rows.map((r) => r.targetType),
        'text',
      )}, ${sql.array(
        rows.map((r) => r.targetId),
        'text',
      )}, ${sql.array(
        rows.map((r) => r.rating),
        'int2',
      )}, ${sql.array(
        rows.map((r) => r.comment),
        'text',
      )}, ${sql.array(
        rows.map((r) => r.at),
        'timestamptz',
      )})
    ON CONFLICT DO NOTHING`);
}
