import { beforeAll, describe, expect, it } from 'vitest';
import { reactionsStream } from '../../src/events/reactions.ts';
import { clicksProjection, readsProjection } from '../../src/projections/interactions.ts';
import { postsProjection } from '../../src/projections/posts.ts';
import { reactionsProjection } from '../../src/projections/reactions.ts';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { bearer, startApp, TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { eraseUser } from '../support/erase-user.ts';
import { eventually } from '../support/eventually.ts';
import { sessionToken } from '../support/jwt.ts';
import { type PostStep, postThrough } from '../support/posts.ts';
import { expectRebuildEqualsLive } from '../support/rebuild.ts';
import { expectPollInterval } from '../support/poll-interval.ts';

// Counts without delay, so each change shows at the next poll (their delay has a test of its own).
const used = useRunningApp({ env: { POLL_FEED_MS: '7000', FEED_COUNTS_LAG_MS: '0' } });
const url = () => used.running.url;
let admin = '';
let channelId = '';
const alice = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'alice'));
const bob = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'bob'));

beforeAll(async () => {
  admin = await loginToken(url(), await createTestAdmin(used.db.pool, 'owner'));
  const made = await adminCall(url(), admin, 'POST', '/admin/channels', {
    title: 'Feed',
    allowedReactions: ['👍', '🔥'],
  });
  channelId = (made.body as { id: string }).id;
});

/** A post of the channel, with a button, moved through `steps` by the admin. */
const post = (text: string, steps: readonly PostStep[] = ['publish']) =>
  postThrough(url(), admin, channelId, steps, {
    text,
    buttons: [{ label: 'Read more', url: 'https://example.com/more' }],
  });

interface FeedPost {
  id: string;
  text: string;
  editedAt?: string;
  buttons: { label: string }[];
  reactions: { counts: Record<string, number>; mine: string[] };
}
const feed = async (headers = alice, query = '') => {
  const res = await fetch(`${url()}/api/channel/${channelId}/posts${query}`, { headers });
  return {
    res,
    body:
      res.status === 200 ? ((await res.json()) as { items: FeedPost[]; nextCursor: string | null }) : null,
  };
};
const reactTo = (id: string, emoji: string, method: 'PUT' | 'DELETE', headers = alice) =>
  fetch(`${url()}/api/channel/${channelId}/posts/${id}/reactions/${encodeURIComponent(emoji)}`, {
    method,
    headers,
  });

describe('the channel feed', () => {
  it('shows only published posts, newest first, with buttons and reactions', async () => {
    const hidden = await post('hidden', ['publish', 'hide']);
    const draft = await post('draft', []);
    const scheduled = await post('scheduled', ['schedule']);
    const deleted = await post('deleted', ['publish', 'delete']);
    const older = await post('older');
    const newer = await post('newer');
    const { body } = await feed();
    const ids = body?.items.map((p) => p.id) ?? [];
    expect(ids.slice(0, 2)).toEqual([newer, older]);
    for (const invisible of [hidden, draft, scheduled, deleted]) expect(ids).not.toContain(invisible);
    expect(body?.items[0]).toMatchObject({
      text: 'newer',
      buttons: [{ label: 'Read more' }],
      reactions: { counts: {}, mine: [] },
    });
    expect(body?.items[0]).not.toHaveProperty('editedAt');
    for (const invisible of [hidden, draft, scheduled, deleted]) {
      const res = await fetch(`${url()}/api/channel/${channelId}/posts/${invisible}`, { headers: alice });
      expect(res.status).toBe(404);
    }
    // Unhidden, a post is back.
    await adminCall(url(), admin, 'POST', `/admin/posts/${hidden}/unhide`);
    expect((await feed()).body?.items.map((p) => p.id)).toContain(hidden);
  });

  it('answers 304 to an unchanged poll, and a new ETag after an edit or a reaction', async () => {
    const id = await post('etag');
    const first = await feed();
    const etag = first.res.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\/"/);
    expectPollInterval(first.res.headers.get('x-poll-interval'), 7000);
    const same = await feed({ ...alice, 'if-none-match': etag });
    expect(same.res.status).toBe(304);
    expect(await same.res.text()).toBe('');

    await adminCall(url(), admin, 'PATCH', `/admin/posts/${id}`, { text: 'etag, edited' });
    const edited = await feed({ ...alice, 'if-none-match': etag });
    expect(edited.res.status).toBe(200);
    expect(edited.body?.items.find((p) => p.id === id)?.editedAt).toEqual(expect.any(String));
    const afterEdit = edited.res.headers.get('etag') ?? '';
    expect(afterEdit).not.toBe(etag);

    expect((await reactTo(id, '🔥', 'PUT', bob)).status).toBe(200);
    const counted = await feed({ ...alice, 'if-none-match': afterEdit });
    expect(counted.res.status).toBe(200);
    expect(counted.body?.items.find((p) => p.id === id)?.reactions).toEqual({
      counts: { '🔥': 1 },
      mine: [],
    });
    // The same page, as bob sees it: the same counts, his own reaction.
    expect((await feed(bob)).body?.items.find((p) => p.id === id)?.reactions).toEqual({
      counts: { '🔥': 1 },
      mine: ['🔥'],
    });

    const single = await fetch(`${url()}/api/channel/${channelId}/posts/${id}`, { headers: alice });
    const tag = single.headers.get('etag') ?? '';
    expect(
      (
        await fetch(`${url()}/api/channel/${channelId}/posts/${id}`, {
          headers: { ...alice, 'if-none-match': tag },
        })
      ).status,
    ).toBe(304);
  });

  it('shows on another replica, at its next poll, what changed through this one', async () => {
    // The other replica runs no projection: all it knows of changes is what it hears from this one.
    const other = await startApp({
      db: used.db,
      env: { POLL_FEED_MS: '7000', FEED_COUNTS_LAG_MS: '0' },
      projections: [],
    });
    try {
      const id = await post('across replicas');
      const poll = (headers: Record<string, string>) =>
        fetch(`${other.url}/api/channel/${channelId}/posts`, { headers });
      const first = await poll(alice);
      const etag = first.headers.get('etag') ?? '';
      expect(((await first.json()) as { items: FeedPost[] }).items[0]?.id).toBe(id);
      expect((await poll({ ...alice, 'if-none-match': etag })).status).toBe(304);

      expect((await reactTo(id, '👍', 'PUT')).status).toBe(200);
      // The change arrives with the notification this replica's runner sends after its batch commits.
      // (CI once saw a 200 with the new count and `mine` still empty before the full state: noted, open.)
      const after = await eventually(
        async () => {
          const res = await poll({ ...alice, 'if-none-match': etag });
          const items = res.status === 200 ? ((await res.json()) as { items: FeedPost[] }).items : [];
          return { res, seen: items.find((p) => p.id === id) };
        },
        ({ res, seen }) => res.status === 200 && seen?.reactions.mine.length === 1,
      );
      expect(after.seen?.reactions).toEqual({ counts: { '👍': 1 }, mine: ['👍'] });

      await adminCall(url(), admin, 'POST', `/admin/posts/${id}/hide`);
      const hidden = await eventually(
        () => poll({ ...alice, 'if-none-match': after.res.headers.get('etag') ?? '' }),
        (res) => res.status === 200,
      );
      expect(((await hidden.json()) as { items: FeedPost[] }).items.map((p) => p.id)).not.toContain(id);
    } finally {
      await other.close();
    }
  });

  it('pages with an opaque before-cursor', async () => {
    for (let i = 0; i < 3; i++) await post(`page ${i}`);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const { body } = await feed(alice, `?limit=2${cursor ? `&before=${cursor}` : ''}`);
      seen.push(...(body?.items.map((p) => p.id) ?? []));
      cursor = body?.nextCursor ?? null;
    } while (cursor !== null);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe((await feed(alice, '?limit=100')).body?.items.length);
  });
});

describe('reactions', () => {
  it('are one per (user, emoji): PUT and DELETE are idempotent, counts and mine follow', async () => {
    const id = await post('react');
    const body = async (res: Response) =>
      (await res.json()) as { counts: Record<string, number>; mine: string[] };
    expect(await body(await reactTo(id, '👍', 'PUT'))).toEqual({ counts: { '👍': 1 }, mine: ['👍'] });
    expect(await body(await reactTo(id, '👍', 'PUT'))).toEqual({ counts: { '👍': 1 }, mine: ['👍'] });
    expect(await body(await reactTo(id, '🔥', 'PUT'))).toEqual({
      counts: { '👍': 1, '🔥': 1 },
      mine: ['👍', '🔥'],
    });
    expect(await body(await reactTo(id, '👍', 'PUT', bob))).toEqual({
      counts: { '👍': 2, '🔥': 1 },
      mine: ['👍'],
    });
    expect(await body(await reactTo(id, '👍', 'DELETE'))).toEqual({
      counts: { '👍': 1, '🔥': 1 },
      mine: ['🔥'],
    });
    expect(await body(await reactTo(id, '👍', 'DELETE'))).toEqual({
      counts: { '👍': 1, '🔥': 1 },
      mine: ['🔥'],
    });
    const events = await used.running.eventSourcing.store.readStream(reactionsStream('alice'));
    expect(events.filter((e) => (e.data as { postId: string }).postId === id).map((e) => e.type)).toEqual([
      'reactionAdded',
      'reactionAdded',
      'reactionRemoved',
    ]);
  });

  it("refuses an emoji outside the channel's set (403) and a post clients cannot see (404)", async () => {
    const id = await post('strict');
    const refused = await reactTo(id, '😂', 'PUT');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'reaction_not_allowed' });
    const draft = await post('not yet', []);
    expect((await reactTo(draft, '👍', 'PUT')).status).toBe(404);
  });

  it('rebuild from the events alone, equal to the live tables', async () => {
    const [rows] = await expectRebuildEqualsLive(used, reactionsProjection);
    expect(rows?.length).toBeGreaterThan(2);
  });
});

describe('views, clicks and read markers', () => {
  const viewCount = async (id: string) =>
    (
      (await fetch(`${url()}/api/channel/${channelId}/posts/${id}`, { headers: alice }).then((r) =>
        r.json(),
      )) as {
        viewCount: number;
      }
    ).viewCount;
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 50 && !(await check()); i++) await new Promise((r) => setTimeout(r, 100));
  };
  const view = (postIds: string[], headers: Record<string, string> = alice) =>
    fetch(`${url()}/api/channel/${channelId}/views`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ postIds }),
    });

  it('count one view per (user, post), however often it is sent', async () => {
    const a = await post('viewed a');
    const b = await post('viewed b');
    expect((await view([a, a, b])).status).toBe(204);
    expect((await view([a])).status).toBe(204);
    expect((await view([a], bob)).status).toBe(204);
    await until(async () => (await viewCount(a)) === 2 && (await viewCount(b)) === 1);
    expect([await viewCount(a), await viewCount(b)]).toEqual([2, 1]);
    expect((await view([])).status).toBe(400);
    expect((await view(Array.from({ length: 101 }, () => a))).status).toBe(400);
  });

  it('record a click on a visible button and answer its URL', async () => {
    const id = await post('clicky');
    const { buttons } = (await fetch(`${url()}/api/channel/${channelId}/posts/${id}`, {
      headers: alice,
    }).then((r) => r.json())) as { buttons: { id: string; url: string }[] };
    const buttonId = buttons[0]?.id ?? '';
    const click = (button: string, postId = id) =>
      fetch(`${url()}/api/channel/${channelId}/posts/${postId}/buttons/${button}/click`, {
        method: 'POST',
        headers: alice,
      });
    const res = await click(buttonId);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ url: 'https://example.com/more' });
    expect((await click('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const draft = await post('draft click', []);
    expect((await click(buttonId, draft)).status).toBe(404);
  });

  it('count unread posts per channel from the read marker, which never moves back', async () => {
    const unread = async (headers = bob) =>
      (
        (await fetch(`${url()}/api/channels`, { headers }).then((r) => r.json())) as {
          items: { id: string; unread: number }[];
        }
      ).items.find((c) => c.id === channelId)?.unread;
    const read = (lastReadPostId: string) =>
      fetch(`${url()}/api/channel/${channelId}/read`, {
        method: 'POST',
        headers: { ...bob, 'content-type': 'application/json' },
        body: JSON.stringify({ lastReadPostId }),
      });
    const all = (await feed(bob, '?limit=100')).body?.items ?? [];
    expect(await unread()).toBe(all.length);
    const newest = all[0]?.id ?? '';
    const oldest = all.at(-1)?.id ?? '';
    expect((await read(newest)).status).toBe(204);
    expect(await unread()).toBe(0);
    expect((await read(oldest)).status).toBe(204);
    expect(await unread()).toBe(0);
    await post('fresh');
    expect(await unread()).toBe(1);
    expect(await unread(alice)).toBe(all.length + 1);
    expect((await read('00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('rebuild from the events alone: posts (with views), clicks and read markers', async () => {
    for (const projection of [postsProjection, clicksProjection, readsProjection]) {
      const [rows] = await expectRebuildEqualsLive(used, projection);
      expect(rows?.length, projection.name).toBeGreaterThan(0);
    }
  });
});

describe('post stats for authors', () => {
  it('count views and clicks per day, reactions by emoji and clicks by button', async () => {
    const id = await post('measured');
    const { buttons } = (await fetch(`${url()}/api/channel/${channelId}/posts/${id}`, {
      headers: alice,
    }).then((r) => r.json())) as { buttons: { id: string }[] };
    const buttonId = buttons[0]?.id ?? '';
    for (const headers of [alice, bob]) {
      await fetch(`${url()}/api/channel/${channelId}/views`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ postIds: [id] }),
      });
      await fetch(`${url()}/api/channel/${channelId}/posts/${id}/buttons/${buttonId}/click`, {
        method: 'POST',
        headers,
      });
    }
    await fetch(`${url()}/api/channel/${channelId}/posts/${id}/buttons/${buttonId}/click`, {
      method: 'POST',
      headers: alice,
    });
    await reactTo(id, '🔥', 'PUT');
    const today = new Date().toISOString().slice(0, 10);
    const stats = async () =>
      (await adminCall(url(), admin, 'GET', `/admin/posts/${id}/stats`)).body as {
        views: { total: number; byDay: { day: string; count: number }[] };
        reactions: Record<string, number>;
        clicks: {
          total: number;
          byButton: { buttonId: string; label: string; count: number }[];
          byDay: unknown[];
        };
      };
    for (let i = 0; i < 50 && ((await stats()).views.total < 2 || (await stats()).clicks.total < 3); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await stats()).toEqual({
      postId: id,
      views: { total: 2, byDay: [{ day: today, count: 2 }] },
      reactions: { '🔥': 1 },
      clicks: {
        total: 3,
        byButton: [{ buttonId, label: 'Read more', count: 3 }],
        byDay: [{ day: today, count: 3 }],
      },
      // Published without `notify`: no push.
      push: null,
    });
  });
});

describe('post stats after an erasure', () => {
  it("keep the erased user's view, click and reaction in the totals; their day of views goes", async () => {
    const id = await post('measured, then erased');
    const { buttons } = (await fetch(`${url()}/api/channel/${channelId}/posts/${id}`, {
      headers: alice,
    }).then((r) => r.json())) as { buttons: { id: string }[] };
    const buttonId = buttons[0]?.id ?? '';
    const cleo = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'cleo'));
    const dan = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'dan'));
    for (const headers of [cleo, dan]) {
      await fetch(`${url()}/api/channel/${channelId}/views`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ postIds: [id] }),
      });
    }
    await fetch(`${url()}/api/channel/${channelId}/posts/${id}/buttons/${buttonId}/click`, {
      method: 'POST',
      headers: cleo,
    });
    expect((await reactTo(id, '🔥', 'PUT', cleo)).status).toBe(200);
    type Stats = {
      views: { total: number; byDay: { count: number }[] };
      reactions: Record<string, number>;
      clicks: { total: number };
    };
    const stats = async () =>
      (await adminCall(url(), admin, 'GET', `/admin/posts/${id}/stats`)).body as Stats;
    await eventually(stats, (s) => s.views.total === 2 && s.clicks.total === 1 && s.reactions['🔥'] === 1);

    await eraseUser(used, 'cleo', ['posts', 'clicks', 'reactions', 'reads']);
    expect(await stats()).toMatchObject({
      views: { total: 2, byDay: [{ count: 1 }] },
      reactions: { '🔥': 1 },
      clicks: { total: 1 },
    });
    const mine = (await feed(cleo)).body?.items.find((p) => p.id === id)?.reactions;
    expect(mine).toEqual({ counts: { '🔥': 1 }, mine: [] });
  });
});

describe('malformed client requests', () => {
  it.each([
    ['GET', '/api/channel/not-a-uuid/posts', undefined],
    ['GET', '/api/channel/{c}/posts?limit=0', undefined],
    ['GET', '/api/channel/{c}/posts?before=not*a*cursor', undefined],
    ['PUT', `/api/channel/{c}/posts/{c}/reactions/${'x'.repeat(40)}`, undefined],
    ['POST', '/api/channel/{c}/views', { postIds: ['not-a-uuid'] }],
    ['POST', '/api/channel/{c}/views', { postIds: [], extra: true }],
    ['POST', '/api/channel/{c}/read', {}],
    ['POST', '/api/channel/{c}/posts/{c}/buttons/nope/click', undefined],
  ] as const)('%s %s answers 400 validation_failed', async (method, path, body) => {
    const res = await fetch(url() + path.replaceAll('{c}', channelId), {
      method,
      headers: { ...alice, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'validation_failed' });
  });
});
