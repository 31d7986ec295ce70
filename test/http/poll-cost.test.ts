import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unreadOf } from '../../src/chat/unread.ts';
import { createCommentsCache } from '../../src/queries/comments-cache.ts';
import { createFeedCache } from '../../src/queries/feed-cache.ts';
import { z } from 'zod';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { bearer, type CountedApp, type RunningApp, startCountedApp, TEST_SECRETS } from '../support/app.ts';
import { useTestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { sessionToken } from '../support/jwt.ts';
import { requireSandbox } from '../support/chat.ts';
import { postThrough } from '../support/posts.ts';
import type { StatementCounter } from '../support/statement-counter.ts';

// Every connection of the app (its pool, the event store, LISTEN, leader locks) goes through a relay that
// records each statement, so what a poll costs the database is counted, not assumed.
const db = useTestDatabase();
let app: CountedApp;
let running: RunningApp;
let counter: StatementCounter;
let channelId = '';
let postId = '';
let conversationId = '';
let ticketId = '';
let ticketless = '';

const as = (user: string) => bearer(sessionToken(TEST_SECRETS.JWT_SECRET, user));
const get = (user: string, path: string, etag?: string) =>
  fetch(`${running.url}${path}`, { headers: { ...as(user), ...(etag ? { 'if-none-match': etag } : {}) } });

// What runs on its own, whoever polls: the event store's subscriptions and wake-ups, the change feed, the
// leaders' locks and the push queue's workers (schema pgboss). The inbox worker is off here; nothing else
// may appear while clients only poll.
const background = [/FROM events/, /^LISTEN /, /pg_notify/, /advisory/, /pgboss\./];
const pollStatements = (from: number) =>
  counter.statements.slice(from).filter((s) => !background.some((pattern) => pattern.test(s)));

beforeAll(async () => {
  app = await startCountedApp(db, { support: { runInbox: false } });
  ({ running, counter } = app);
  const admin = await loginToken(running.url, await createTestAdmin(db.pool, 'owner'));
  const made = await adminCall(running.url, admin, 'POST', '/admin/channels', {
    title: 'Polled',
    allowedReactions: ['👍'],
  });
  channelId = z.object({ id: z.string() }).parse(made.body).id;
  postId = await postThrough(running.url, admin, channelId, ['publish'], { text: 'Polled post' });
  const comment = await fetch(`${running.url}/api/channel/${channelId}/posts/${postId}/comments`, {
    method: 'POST',
    headers: { ...as('carol'), 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'First!' }),
  });
  expect(comment.status).toBe(201);
  const opened = await fetch(`${running.url}/api/conversations`, {
    method: 'POST',
    headers: { ...as('dave'), 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'Hello support' }),
  });
  expect(opened.status).toBe(201);
  conversationId = z.object({ conversationId: z.string() }).parse(await opened.json()).conversationId;
  // Dave's conversation closed and a ticket of his resolved, both rated: the CSAT overlay's polls.
  const sandbox = requireSandbox(running.support.sandbox);
  const contactId = [...sandbox.state.contacts.values()].find((c) => c.externalId === 'dave')?.id ?? '';
  await sandbox.operator.close(conversationId);
  ticketId = (await sandbox.operator.createTicket({ contactId, title: 'Polled ticket' })).id;
  await sandbox.operator.resolveTicket(ticketId);
  // The inbox is off here: the cache hears of both as a processed webhook would tell it.
  await running.support.cache.invalidate({ contactIds: [contactId], conversationId, ticketId });
  for (const [targetType, targetId] of [
    ['conversation', conversationId],
    ['ticket', ticketId],
  ]) {
    const rated = await fetch(`${running.url}/api/csat`, {
      method: 'POST',
      headers: { ...as('dave'), 'content-type': 'application/json' },
      body: JSON.stringify({ targetType, targetId, rating: 4 }),
    });
    expect(rated.status).toBe(201);
  }
  // He has looked at the ticket (which marks it read), so his unread badges stay put while he polls.
  expect((await get('dave', `/api/tickets/${ticketId}`)).status).toBe(200);
  ticketless = 'erin';
}, 60_000);

afterAll(async () => {
  await app.close();
});

describe('what a poll costs the database', () => {
  it('a 304 on every poll route runs no SQL statement in steady state', async () => {
    const routes: [string, string][] = [
      [ticketless, '/api/unread'],
      ['dave', '/api/unread'],
      ['alice', `/api/channel/${channelId}/posts`],
      ['alice', `/api/channel/${channelId}/posts/${postId}`],
      ['alice', `/api/channel/${channelId}/posts/${postId}/comments`],
      ['dave', `/api/conversations/${conversationId}`],
      ['dave', '/api/conversations'],
      ['dave', '/api/tickets'],
      ['dave', `/api/tickets/${ticketId}`],
    ];
    // Warm: each user's first poll reads what it needs, and the second is the client's first 304.
    const etags = new Map<string, string>();
    for (const [user, path] of routes) {
      const first = await get(user, path);
      expect(first.status, path).toBe(200);
      etags.set(`${user} ${path}`, first.headers.get('etag') ?? '');
      expect((await get(user, path, etags.get(`${user} ${path}`))).status, path).toBe(304);
    }
    const from = counter.statements.length;
    for (let round = 0; round < 5; round += 1) {
      for (const [user, path] of routes) {
        expect((await get(user, path, etags.get(`${user} ${path}`))).status, path).toBe(304);
      }
    }
    expect(pollStatements(from)).toEqual([]);
  });

  it('after a change, the polls it concerns read again once, and the others still read nothing', async () => {
    const feedPath = `/api/channel/${channelId}/posts`;
    const threadPath = `/api/channel/${channelId}/posts/${postId}/comments`;
    const [feedTag, threadTag, unreadTag] = await Promise.all(
      [feedPath, threadPath, '/api/unread'].map(async (path) =>
        (await get('alice', path)).headers.get('etag'),
      ),
    );
    const posted = await fetch(`${running.url}${threadPath}`, {
      method: 'POST',
      headers: { ...as('carol'), 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Another one' }),
    });
    expect(posted.status).toBe(201);
    // The thread changed: its next poll is a 200 with the comment, and the one after that a 304 again.
    const changed = await eventually(
      () => get('alice', threadPath, threadTag ?? ''),
      (res) => res.status === 200,
    );
    const newTag = changed.headers.get('etag') ?? '';
    const from = counter.statements.length;
    expect((await get('alice', threadPath, newTag)).status).toBe(304);
    expect((await get('alice', '/api/unread', unreadTag ?? '')).status).toBe(304);
    expect(pollStatements(from)).toEqual([]);
    // The feed shows comment counts: with the default lag they may still be the old ones, but a poll
    // whose answer did not change stays free either way.
    const feed = await get('alice', feedPath, feedTag ?? '');
    expect([200, 304]).toContain(feed.status);
  });
});

describe('the first polls of many users at once', () => {
  it('share their reads, and each user still gets their own answer', async () => {
    const users = Array.from({ length: 24 }, (_, i) => `crowd-${i}`);
    const reacted = users.filter((_, i) => i % 3 === 0);
    const readAll = users.filter((_, i) => i % 4 === 0);
    for (const user of reacted) {
      const res = await fetch(
        `${running.url}/api/channel/${channelId}/posts/${postId}/reactions/${encodeURIComponent('👍')}`,
        { method: 'PUT', headers: as(user) },
      );
      expect(res.status).toBe(200);
    }
    for (const user of readAll) {
      const res = await fetch(`${running.url}/api/channel/${channelId}/read`, {
        method: 'POST',
        headers: { ...as(user), 'content-type': 'application/json' },
        body: JSON.stringify({ lastReadPostId: postId }),
      });
      expect(res.status).toBe(204);
    }
    // The reads behind the polls, asked for every user at once, as a crowd's polls arrive at a busy
    // service (requests sent from this test reach the app a loop turn apart, so they are asked directly).
    const { chat, pool, changes, media } = running.app.services;
    const feed = createFeedCache(pool, changes, { countsLagMs: 0, media });
    const threads = createCommentsCache(pool, changes, media);
    const feedItems = z.array(z.object({ reactions: z.object({ mine: z.array(z.string()) }) }));
    const from = counter.statements.length;
    const answers = await Promise.all(
      users.map(async (user) => {
        const [unread, page, thread] = await Promise.all([
          unreadOf(chat, user),
          feed.page({ channelId, userId: user, limit: 20, before: null }),
          threads.poll({ channelId, postId, userId: user, since: null, limit: 20 }),
        ]);
        expect(thread?.viewerIsModerator).toBe(false);
        return {
          user,
          channels: unread.unread.channels,
          mine: feedItems.parse(JSON.parse(page.itemsJson().toString('utf8')))[0]?.reactions.mine,
        };
      }),
    );
    for (const { user, channels, mine } of answers) {
      expect(mine, user).toEqual(reacted.includes(user) ? ['👍'] : []);
      expect(channels[channelId], user).toBe(readAll.includes(user) ? 0 : 1);
    }
    // One query per user and kind without batching.
    const statements = pollStatements(from);
    for (const table of ['user_contacts', 'channel_reads', 'post_reactions', 'comment_moderators']) {
      const reads = statements.filter((s) => s.includes(`FROM ${table}`)).length;
      expect(reads, table).toBeGreaterThan(0);
      expect(reads, table).toBeLessThanOrEqual(2);
    }
    // None of them has a contact, so none has a ticket: their ticket markers are not read at all.
    expect(statements.filter((s) => s.includes('FROM ticket_reads'))).toEqual([]);
  });
});
