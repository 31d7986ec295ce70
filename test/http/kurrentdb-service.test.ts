import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Json } from '../../src/events/envelope.ts';
import { channelStream } from '../../src/events/channels.ts';
import { commentStream } from '../../src/events/comments.ts';
import { moderationStream } from '../../src/events/moderation.ts';
import { createKurrentDbEventStore } from '../../src/events/store/kurrentdb.ts';
import type { EventStore } from '../../src/events/store/port.ts';
import { createLogger } from '../../src/http/logger.ts';
import { channelsProjection } from '../../src/projections/channels.ts';
import { commentsProjection } from '../../src/projections/comments.ts';
import { moderationProjection } from '../../src/projections/moderation.ts';
import { postsProjection } from '../../src/projections/posts.ts';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { type RunningApp, startApp, TEST_SECRETS, type UsedApp } from '../support/app.ts';
import { commentAs, userHeaders } from '../support/comments.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { type KurrentDbDouble, startKurrentDbDouble } from '../support/kurrentdb-double/index.ts';
import { postThrough } from '../support/posts.ts';
import { spawnService } from '../support/process.ts';
import { expectRebuildEqualsLive } from '../support/rebuild.ts';

// The whole service with EVENT_STORE=kurrentdb, its event log on the KurrentDB protocol double
// (test/support/kurrentdb-double: not a server; see its README), its read tables and data keys in
// PostgreSQL, sealing around the store as in production. The double's faults stand in for a leader change
// under the service's own writes and subscriptions.

let double: KurrentDbDouble;
let db: TestDatabase;
let running: RunningApp;
/** The log as KurrentDB holds it: no sealing, so a test sees what the service wrote. */
let raw: EventStore;
const used: UsedApp = {
  get db() {
    return db;
  },
  get running() {
    return running;
  },
};

beforeAll(async () => {
  double = await startKurrentDbDouble();
  db = await createTestDatabase();
  running = await startApp({
    db,
    env: { EVENT_STORE: 'kurrentdb', EVENTSTORE_URL: double.connectionString, FEED_COUNTS_LAG_MS: '0' },
  });
  raw = createKurrentDbEventStore({
    connectionString: double.connectionString,
    logger: createLogger('silent'),
  });
});
afterAll(async () => {
  double.faults.clear();
  await raw.close();
  await running.close();
  await db.drop();
  await double.stop();
});

const url = () => running.url;
let admin = '';
let channelId = '';
let postId = '';
const ids = { kept: '', hidden: '', deleted: '' };

interface Comment {
  readonly id: string;
  readonly status: string;
  readonly text?: string;
}
const poll = async (userId: string): Promise<Comment[]> => {
  const res = await fetch(`${url()}/api/channel/${channelId}/posts/${postId}/comments`, {
    headers: userHeaders(userId),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Comment[] }).items;
};
/** Every row of the comment and moderation read tables, as the admin API lists them. */
const adminView = async () => {
  const comments = await adminCall(url(), admin, 'GET', `/admin/channels/${channelId}/comments`);
  const bans = await adminCall(url(), admin, 'GET', `/admin/channels/${channelId}/bans`);
  return {
    comments: (comments.body as { items: { id: string; status: string }[] }).items
      .map((c) => `${c.id}:${c.status}`)
      .sort(),
    bans: (bans.body as { items: { userId: string }[] }).items.map((b) => b.userId).sort(),
  };
};
/** What the PostgreSQL event store's table holds: nothing, with the events in KurrentDB. */
const eventsInPostgres = () =>
  db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM events`);
const typesOf = async (stream: string) => (await raw.readStream(stream)).map((e) => e.type);

describe('the service on KurrentDB (protocol double)', () => {
  it('runs its event store on KurrentDB: the PostgreSQL events table stays empty', async () => {
    expect(running.eventSourcing.store.kind).toBe('kurrentdb');
    admin = await loginToken(url(), await createTestAdmin(db.pool, 'owner'));
    const made = await adminCall(url(), admin, 'POST', '/admin/channels', { title: 'On KurrentDB' });
    expect(made.status).toBe(201);
    channelId = (made.body as { id: string }).id;
    postId = await postThrough(url(), admin, channelId, ['publish'], { text: 'Stored in KurrentDB' });
    const feed = await fetch(`${url()}/api/channel/${channelId}/posts`, { headers: userHeaders('reader') });
    expect(((await feed.json()) as { items: { id: string }[] }).items.map((p) => p.id)).toEqual([postId]);
    expect(await eventsInPostgres()).toBe(0);
    expect(await typesOf(channelStream(channelId))).toContain('channelCreated');
  });

  it('takes a comment through a not-leader answer, once, and seals its text in KurrentDB', async () => {
    const refused = double.faults.refusedAppends;
    double.faults.notLeaderOnNextAppends(2);
    const kept = await commentAs(url(), channelId, postId, 'Kept for the record', 'ann');
    expect(kept.status, JSON.stringify(kept.body)).toBe(201);
    expect(double.faults.refusedAppends - refused).toBe(2);
    ids.kept = kept.id;
    expect(await typesOf(commentStream(kept.id))).toEqual(['commentPosted']);

    // As stored: a sealed box whose key lives in PostgreSQL; through the service's store: the text.
    const [stored] = await raw.readStream(commentStream(kept.id));
    const text = (stored?.data as { text?: Json } | undefined)?.text;
    expect(text).toMatchObject({ sealed: 'v1' });
    expect(JSON.stringify(stored?.data)).not.toContain('Kept for the record');
    const [opened] = await running.eventSourcing.store.readStream(commentStream(kept.id));
    expect((opened?.data as { text?: Json } | undefined)?.text).toBe('Kept for the record');
    expect(await poll('bob')).toEqual([
      expect.objectContaining({ id: kept.id, text: 'Kept for the record' }),
    ]);
  });

  it('lets a channel moderator hide a comment, through an unavailable node', async () => {
    expect((await adminCall(url(), admin, 'PUT', `/admin/channels/${channelId}/moderators/mia`)).status).toBe(
      204,
    );
    const comment = await commentAs(url(), channelId, postId, 'Off topic', 'cat');
    expect(comment.status).toBe(201);
    ids.hidden = comment.id;
    const refused = double.faults.refusedAppends;
    double.faults.unavailableOnNextAppends(2);
    const hide = await fetch(
      `${url()}/api/channel/${channelId}/posts/${postId}/comments/${comment.id}/hide`,
      {
        method: 'POST',
        headers: { ...userHeaders('mia'), 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'off topic' }),
      },
    );
    expect(hide.status).toBe(204);
    expect(double.faults.refusedAppends - refused).toBe(2);
    expect(await typesOf(commentStream(comment.id))).toEqual(['commentPosted', 'commentHidden']);
    expect((await poll('bob')).map((c) => c.id)).toEqual([ids.kept]);
    expect(await poll('mia')).toContainEqual(expect.objectContaining({ id: comment.id, status: 'hidden' }));
  });

  it('lets an admin delete a comment whose answer is lost after the write, without a second event', async () => {
    const comment = await commentAs(url(), channelId, postId, 'Rude words', 'dan');
    expect(comment.status).toBe(201);
    ids.deleted = comment.id;
    const refused = double.faults.refusedAppends;
    double.faults.loseAnswerOfNextAppends(1);
    const deleted = await adminCall(url(), admin, 'DELETE', `/admin/comments/${comment.id}`, {
      reason: 'rude',
    });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    expect(double.faults.refusedAppends - refused).toBe(1);
    expect(await typesOf(commentStream(comment.id))).toEqual(['commentPosted', 'commentDeleted']);
    expect((await poll('bob')).map((c) => c.id)).toEqual([ids.kept]);
  });

  it('bans a user; the ban holds after the projections lost their subscription and resumed it', async () => {
    const dropped = double.faults.droppedSubscriptions;
    double.faults.dropSubscriptions(0);
    const ban = await adminCall(url(), admin, 'POST', `/admin/channels/${channelId}/bans`, {
      userId: 'dan',
      reason: 'abuse',
    });
    expect(ban.status, JSON.stringify(ban.body)).toBe(201);
    expect(double.faults.droppedSubscriptions).toBeGreaterThan(dropped);
    expect(await typesOf(moderationStream(channelId))).toEqual(['moderatorAssigned', 'userBanned']);
    const refused = await commentAs(url(), channelId, postId, 'let me back', 'dan');
    expect(refused).toMatchObject({ status: 403, body: { code: 'user_banned' } });
    expect(await adminView()).toEqual({
      comments: [`${ids.deleted}:deleted`, `${ids.hidden}:hidden`, `${ids.kept}:visible`].sort(),
      bans: ['dan'],
    });
  });

  it('rebuilds the channel, post, comment and moderation tables from KurrentDB, equal to the live ones', async () => {
    for (const projection of [
      channelsProjection,
      postsProjection,
      commentsProjection,
      moderationProjection,
    ]) {
      const [rows] = await expectRebuildEqualsLive(used, projection);
      expect(rows?.length, projection.name).toBeGreaterThan(0);
    }
  });

  it('rebuilds from the CLI with EVENT_STORE=kurrentdb, and the service answers as before', async () => {
    const before = { view: await adminView(), bob: await poll('bob'), mia: await poll('mia') };
    for (const name of ['comments', 'moderation']) {
      const run = spawnService(process.execPath, ['src/cli.ts', 'projections', 'rebuild', name], {
        DATABASE_URL: db.url,
        EVENT_STORE: 'kurrentdb',
        EVENTSTORE_URL: double.connectionString,
        // The service's master key: the rebuild opens the sealed comment texts (decision 048).
        DATA_KEY_SECRET: TEST_SECRETS.DATA_KEY_SECRET,
        LOG_LEVEL: 'warn',
      });
      expect(await run.exited, run.output()).toBe(0);
      expect(run.output()).toMatch(new RegExp(`rebuilt ${name}: \\d+ events into generation \\d+`));
    }
    expect({ view: await adminView(), bob: await poll('bob'), mia: await poll('mia') }).toEqual(before);
    // The rebuilt tables hold the opened text, not the sealed box.
    expect(before.bob).toEqual([expect.objectContaining({ text: 'Kept for the record' })]);
    // And the live runner follows the new generations.
    const after = await commentAs(url(), channelId, postId, 'After the rebuild', 'eve');
    expect(after.status).toBe(201);
    expect((await poll('bob')).map((c) => c.id).sort()).toEqual([after.id, ids.kept].sort());
    expect(await eventsInPostgres()).toBe(0);
  }, 60_000);
});
