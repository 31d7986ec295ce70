import { sql } from 'slonik';
import { CHANNELS_CATEGORY, channelCreated, channelEdited, channelOfStream } from '../events/channels.ts';
import type { Projection } from './projection.ts';
import { scopes } from './scopes.ts';

/**
 * The `channels` read table: one row per channel with its current settings. Channel events are rare (an
 * admin creating or editing one), so each is applied on its own.
 */
export const channelsProjection: Projection<'channels'> = {
  name: 'channels',
  // 2: auto_hide_reports.
  version: 2,
  categories: [CHANNELS_CATEGORY],
  tables: ['channels'],

  async createTables(db, { channels }) {
    await db.query(sql.unsafe`
      CREATE TABLE ${channels} (
        id uuid PRIMARY KEY,
        title text NOT NULL,
        description text NOT NULL,
        avatar_url text,
        allowed_reactions text[] NOT NULL,
        comments_enabled boolean NOT NULL,
        comment_interval_seconds integer NOT NULL,
        comment_burst integer NOT NULL,
        auto_hide_reports integer NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await db.query(sql.unsafe`CREATE INDEX ON ${channels} (created_at, id)`);
  },

  async apply(db, events, { channels }) {
    for (const recorded of events) {
      const id = channelOfStream(recorded.streamName);
      if (recorded.type === 'channelCreated') {
        const data = channelCreated.shape.data.parse(recorded.data);
        await db.query(sql.unsafe`
          INSERT INTO ${channels} (id, title, description, avatar_url, allowed_reactions, comments_enabled,
            comment_interval_seconds, comment_burst, auto_hide_reports, created_at, updated_at)
          VALUES (${id}, ${data.title}, ${data.description}, ${data.avatarUrl},
            ${sql.array(data.allowedReactions, 'text')}, ${data.commentsEnabled},
            ${data.commentRate.intervalSeconds}, ${data.commentRate.burst}, ${data.autoHideReports},
            ${data.at}, ${data.at})`);
        continue;
      }
      const data = channelEdited.shape.data.parse(recorded.data);
      const reactions = data.allowedReactions ? sql.array(data.allowedReactions, 'text') : null;
      // A NULL avatar is a value ("no avatar"), so it is told apart from "not changed" explicitly.
      const avatarChanged = data.avatarUrl !== undefined;
      await db.query(sql.unsafe`
        UPDATE ${channels} SET
          title = COALESCE(${data.title ?? null}::text, title),
          description = COALESCE(${data.description ?? null}::text, description),
          avatar_url = CASE WHEN ${avatarChanged} THEN ${data.avatarUrl ?? null}::text ELSE avatar_url END,
          allowed_reactions = COALESCE(${reactions}::text[], allowed_reactions),
          comments_enabled = COALESCE(${data.commentsEnabled ?? null}::boolean, comments_enabled),
          comment_interval_seconds = COALESCE(${data.commentRate?.intervalSeconds ?? null}::int,
            comment_interval_seconds),
          comment_burst = COALESCE(${data.commentRate?.burst ?? null}::int, comment_burst),
          auto_hide_reports = COALESCE(${data.autoHideReports ?? null}::int, auto_hide_reports),
          updated_at = ${data.at}
        WHERE id = ${id}`);
    }
  },

  changes: () => [scopes.channels],
};
