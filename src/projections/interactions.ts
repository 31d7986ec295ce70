import { type CommonQueryMethods, sql } from 'slonik';
import type { RecordedEvent } from '../events/envelope.ts';
import {
  buttonClicked,
  CLICKS_CATEGORY,
  channelRead,
  READS_CATEGORY,
  userOfReaderStream,
} from '../events/interactions.ts';
import { erasedUsers } from '../events/privacy.ts';
import { CLICKS_HORIZON, retentionHorizonSql } from '../db/retention-horizons.ts';
import { applyAroundErasures, ERASURES } from './erasures.ts';
import type { Projection, Tables } from './projection.ts';
import { scopes } from './scopes.ts';

/**
 * `post_button_clicks`: one row per click (the event's id keeps it unique), for the posts' stats. Clicks
 * before the retention horizon are skipped, so a rebuild leaves out what the retention job pruned
 * (decision 028); the horizon is a table, so `apply` stays a function of the events and the tables. An
 * erased user's clicks stay, counted, without their user (decision 048).
 */
export const clicksProjection: Projection<'post_button_clicks'> = {
  name: 'clicks',
  // 2: the index on clicked_at that pruning by age uses, and the retention horizon. 3: user_id nullable.
  version: 3,
  categories: [CLICKS_CATEGORY, ERASURES],
  tables: ['post_button_clicks'],

  async createTables(db, { post_button_clicks: clicks }) {
    await db.query(sql.unsafe`
      CREATE TABLE ${clicks} (
        event_id uuid PRIMARY KEY,
        post_id uuid NOT NULL,
        button_id uuid NOT NULL,
        user_id text,
        clicked_at timestamptz NOT NULL
      )`);
    await db.query(sql.unsafe`CREATE INDEX ON ${clicks} (post_id, button_id)`);
    await db.query(sql.unsafe`CREATE INDEX ON ${clicks} (clicked_at)`);
  },

  async apply(db, events, tables) {
    await applyAroundErasures(
      events,
      (run) => insertClicks(db, run, tables),
      async (users) => {
        await db.query(sql.unsafe`
          UPDATE ${tables.post_button_clicks} SET user_id = NULL WHERE user_id = ANY (${sql.array([...users], 'text')})`);
      },
    );
  },
};

async function insertClicks(
  db: CommonQueryMethods,
  events: readonly RecordedEvent[],
  { post_button_clicks: clicks }: Tables<'post_button_clicks'>,
): Promise<void> {
  const rows = events.map((recorded) => ({
    id: recorded.id,
    user: userOfReaderStream(recorded),
    ...buttonClicked.shape.data.parse(recorded.data),
  }));
  await db.query(sql.unsafe`
    INSERT INTO ${clicks} (event_id, post_id, button_id, user_id, clicked_at)
    SELECT e::uuid, p::uuid, b::uuid, u, a::timestamptz
    FROM unnest(${sql.array(
      rows.map((r) => r.id),
      'text',
    )}, ${sql.array(
      rows.map((r) => r.postId),
      'text',
    )},
      ${sql.array(
        rows.map((r) => r.buttonId),
        'text',
      )}, ${sql.array(
        rows.map((r) => r.user),
        'text',
      )},
      ${sql.array(
        rows.map((r) => r.at),
        'text',
      )}) AS x (e, p, b, u, a)
    WHERE a::timestamptz >= ${retentionHorizonSql(CLICKS_HORIZON)}`);
}

/**
 * `channel_reads`: each user's read marker per channel, which only ever moves forward. An erased user's
 * markers go with the erasure (decision 048).
 */
export const readsProjection: Projection<'channel_reads'> = {
  name: 'reads',
  version: 1,
  categories: [READS_CATEGORY, ERASURES],
  tables: ['channel_reads'],

  async createTables(db, { channel_reads: reads }) {
    await db.query(sql.unsafe`
      CREATE TABLE ${reads} (
        user_id text NOT NULL,
        channel_id uuid NOT NULL,
        last_read_post_id uuid NOT NULL,
        last_read_published_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, channel_id)
      )`);
  },

  async apply(db, events, tables) {
    await applyAroundErasures(
      events,
      (run) => moveReadMarkers(db, run, tables),
      async (users) => {
        await db.query(sql.unsafe`
          DELETE FROM ${tables.channel_reads} WHERE user_id = ANY (${sql.array([...users], 'text')})`);
      },
    );
  },

  changes: (_db, events) => [
    ...events
      .filter((e) => e.type !== 'userErased')
      .map((recorded) => scopes.readsOf(userOfReaderStream(recorded))),
    ...erasedUsers(events).map(scopes.readsOf),
  ],
};

async function moveReadMarkers(
  db: CommonQueryMethods,
  events: readonly RecordedEvent[],
  { channel_reads: reads }: Tables<'channel_reads'>,
): Promise<void> {
  for (const recorded of events) {
    const data = channelRead.shape.data.parse(recorded.data);
    await db.query(sql.unsafe`
      INSERT INTO ${reads} AS r (user_id, channel_id, last_read_post_id, last_read_published_at, updated_at)
      VALUES (${userOfReaderStream(recorded)}, ${data.channelId}, ${data.lastReadPostId},
        ${data.lastReadPublishedAt}, ${data.at})
      ON CONFLICT (user_id, channel_id) DO UPDATE
      SET last_read_post_id = EXCLUDED.last_read_post_id,
        last_read_published_at = EXCLUDED.last_read_published_at, updated_at = EXCLUDED.updated_at
      WHERE (EXCLUDED.last_read_published_at, EXCLUDED.last_read_post_id)
        > (r.last_read_published_at, r.last_read_post_id)`);
  }
}
