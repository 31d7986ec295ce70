import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { comparePositions, type Position } from '../src/events/envelope.ts';
import { VIEWS_CATEGORY } from '../src/events/interactions.ts';
import { allProjections } from '../src/projections/index.ts';

/** A production-sized event log, written straight into the store's tables (migration 1763800000000). */

export interface LogSeed {
  /** Events written: `users` × `perUser` `postsViewed` events. */
  readonly events: number;
  readonly users: number;
  readonly seconds: number;
  /** Events in the whole log afterwards (the API seeding's included). */
  readonly logSize: number;
}

/** Users per statement: one statement and one transaction each, so the log spans many transaction ids. */
const USERS_PER_CHUNK = 10_000;
const DAYS_OF_HISTORY = 30;

/**
 * What the store itself would write for a view (commands/interactions.ts): a `postsViewed` event on the
 * user's `userViews-<user>` stream, one post of the channel, a user actor and schema version 1. Each
 * chunk's rows go in revision order across its users, so a stream's revisions rise with the log.
 */
const INSERT_EVENTS = `
  INSERT INTO events (event_id, stream_name, stream_revision, event_type, data, metadata)
  SELECT gen_random_uuid(), '${VIEWS_CATEGORY}-' || v.user_id, r, 'postsViewed',
    jsonb_build_object('channelId', $1::text, 'postIds',
      jsonb_build_array(($2::text[])[1 + (u * 7 + r * 3) % cardinality($2::text[])]), 'at', v.at),
    jsonb_build_object('actor', jsonb_build_object('type', 'user', 'id', v.user_id),
      'correlationId', gen_random_uuid()::text, 'causationId', null, 'occurredAt', v.at, 'schemaVersion', 1)
  FROM generate_series(0, $5::int - 1) AS r, generate_series($3::int, $4::int) AS u,
    LATERAL (SELECT 'fleet-history-' || u AS user_id,
      to_char((now() - make_interval(days => ${DAYS_OF_HISTORY}) + make_interval(secs =>
        (r * $6::int + u)::float8 / ($5::int * $6::int) * ${DAYS_OF_HISTORY} * 86400)) AT TIME ZONE 'UTC',
        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at) AS v`;

const INSERT_STREAMS = `
  INSERT INTO event_streams (stream_name, revision)
  SELECT '${VIEWS_CATEGORY}-fleet-history-' || u, $3::int - 1 FROM generate_series($1::int, $2::int) AS u`;

/**
 * `users` readers with `perUser` views each of the channel's real posts, as months of production would
 * leave them; then ANALYZE, as autovacuum would have done on a log that old.
 */
export async function seedViewLog(
  client: pg.Client,
  channelId: string,
  postIds: readonly string[],
  totalEvents: number,
  perUser = 10,
): Promise<LogSeed> {
  const started = performance.now();
  const users = Math.ceil(totalEvents / perUser);
  for (let from = 0; from < users; from += USERS_PER_CHUNK) {
    const to = Math.min(users, from + USERS_PER_CHUNK) - 1;
    await client.query('BEGIN');
    await client.query(INSERT_STREAMS, [from, to, perUser]);
    await client.query(INSERT_EVENTS, [channelId, postIds, from, to, perUser, users]);
    await client.query('COMMIT');
  }
  await client.query('ANALYZE events');
  await client.query('ANALYZE event_streams');
  const { rows } = await client.query<{ n: string }>('SELECT count(*)::text AS n FROM events');
  return {
    events: users * perUser,
    users,
    seconds: (performance.now() - started) / 1000,
    logSize: Number(rows[0]?.n ?? 0),
  };
}

/**
 * After the catch-up: VACUUM (ANALYZE) and a CHECKPOINT, as autovacuum and the checkpointer would long
 * since have done on a log this old, so the idle phase does not measure the aftermath of the bulk load.
 */
export async function settleDatabase(client: pg.Client): Promise<number> {
  const started = performance.now();
  await client.query('VACUUM (ANALYZE)');
  await client.query('CHECKPOINT');
  return (performance.now() - started) / 1000;
}

const HEAD_OF_CATEGORY = `
  SELECT transaction_id::text AS commit, global_position::text AS prepare FROM events
  WHERE stream_category = $1 ORDER BY transaction_id DESC, global_position DESC LIMIT 1`;
const LIVE_CHECKPOINT = `
  SELECT c.commit_position::text AS commit, c.prepare_position::text AS prepare
  FROM projection_checkpoints c JOIN projections p ON p.name = c.name AND p.active_generation = c.generation
  WHERE p.name = $1`;

type Row = { commit: string | null; prepare: string | null } | undefined;
const positionOf = (row: Row): Position | null =>
  row?.commit == null || row.prepare == null
    ? null
    : { commit: BigInt(row.commit), prepare: BigInt(row.prepare) };

/**
 * Whether every projection's live checkpoint has reached the head of the categories it reads, read from
 * the tables (the order is the store's: transaction id, then position; migration 1763800000000).
 */
async function caughtUp(client: pg.Client): Promise<boolean> {
  for (const projection of allProjections) {
    const checkpoint = positionOf(
      (await client.query<NonNullable<Row>>(LIVE_CHECKPOINT, [projection.name])).rows[0],
    );
    for (const category of projection.categories) {
      const head = positionOf((await client.query<NonNullable<Row>>(HEAD_OF_CATEGORY, [category])).rows[0]);
      if (head && (!checkpoint || comparePositions(checkpoint, head) < 0)) return false;
    }
  }
  return true;
}

/** Waits until the projections have applied the whole log; answers how long that took, in seconds. */
export async function waitForProjections(
  client: pg.Client,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<number> {
  const started = performance.now();
  while (!(await caughtUp(client))) {
    if (performance.now() - started > timeoutMs)
      throw new Error(`the projections did not catch up in ${timeoutMs} ms`);
    await sleep(1_000, undefined, { signal });
  }
  return (performance.now() - started) / 1000;
}
