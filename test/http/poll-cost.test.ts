import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { bearer, type CountedApp, type RunningApp, startCountedApp, TEST_SECRETS } from '../support/app.ts';
import { useTestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { sessionToken } from '../support/jwt.ts';
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
let ticketless = '';

const as = (user: string) => bearer(sessionToken(TEST_SECRETS.JWT_SECRET, user));
const get = (user: string, path: string, etag?: string) =>
  fetch(`${running.url}${path}`, { headers: { ...as(user), ...(etag ? { 'if-none-match': etag } : {}) } });

// What runs on its own, whoever polls: the event store's subscriptions and wake-ups, the change feed, and
// the leaders' locks. The inbox worker is off here; nothing else may appear while clients only poll.
const background = [/FROM events/, /^LISTEN /, /pg_notify/, /advisory/];
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
