import { readFile } from 'node:fs/promises';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fileLinkToken } from '../../src/files/signed-urls.ts';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import {
  bearer,
  type CountedApp,
  type RunningApp,
  startApp,
  startCountedApp,
  TEST_SECRETS,
} from '../support/app.ts';
import { createTestDatabase, type TestDatabase, useTestDatabase } from '../support/database.ts';
import { sessionToken } from '../support/jwt.ts';
import { postThrough } from '../support/posts.ts';
import type { StatementCounter } from '../support/statement-counter.ts';
import { type TestStorage, testStorages } from '../support/storage.ts';

// Post media and comment pictures come with signed links a browser loads with no session (decision 033).
// The app's clock for media links is the test's, so periods and expiry are reached without waiting.
const fixture = (name: string) => readFile(new URL(`../fixtures/files/${name}`, import.meta.url));
const as = (user: string) => bearer(sessionToken(TEST_SECRETS.JWT_SECRET, user));
/** MEDIA_URL_TTL_MINUTES by default: links rotate every half of it. */
const TTL_SECONDS = 60 * 60;
const PERIOD_MS = (TTL_SECONDS / 2) * 1000;
/** The start of a period, a little ahead of real time (where the test's clock starts). */
const START = (Math.floor(Date.now() / PERIOD_MS) + 1) * PERIOD_MS;

const attachmentView = z.object({
  id: z.string(),
  kind: z.string(),
  url: z.string(),
  contentType: z.string(),
  size: z.number(),
});
const postView = z.object({ id: z.string(), attachments: z.array(attachmentView) });
const feedView = z.object({ items: z.array(postView) });
const commentView = z.object({
  id: z.string(),
  image: z.object({ url: z.string(), width: z.number().optional() }).optional(),
});
const commentPage = z.object({ items: z.array(z.union([commentView, z.object({ id: z.string() })])) });

/** The expiry (Unix seconds) a link's token names. */
const expiryOf = (link: string) => Number(new URL(link, 'http://x').searchParams.get('t')?.split('.')[0]);
const tokenOf = (link: string) => new URL(link, 'http://x').searchParams.get('t') ?? '';
const pathOf = (link: string) => new URL(link, 'http://x').pathname;

interface Scene {
  readonly channelId: string;
  readonly postId: string;
  readonly admin: string;
  /** The feed's links to the post's picture and video, and the comment picture's. */
  readonly links: { readonly image: string; readonly video: string; readonly comment: string };
  readonly commentId: string;
}

async function attach(url: string, admin: string, postId: string, bytes: Uint8Array, name: string) {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const answer = await adminCall(url, admin, 'POST', `/admin/posts/${postId}/attachments`, form);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
}

async function feedOf(url: string, channelId: string, etag?: string) {
  return fetch(`${url}/api/channel/${channelId}/posts`, {
    headers: { ...as('reader'), ...(etag ? { 'if-none-match': etag } : {}) },
  });
}

async function threadOf(url: string, channelId: string, postId: string, etag?: string) {
  return fetch(`${url}/api/channel/${channelId}/posts/${postId}/comments`, {
    headers: { ...as('reader'), ...(etag ? { 'if-none-match': etag } : {}) },
  });
}

/** A channel with a published post holding a picture and a video, and a comment with a picture. */
async function setScene(url: string, pool: TestDatabase['pool']): Promise<Scene> {
  const admin = await loginToken(url, await createTestAdmin(pool, 'owner'));
  const made = await adminCall(url, admin, 'POST', '/admin/channels', { title: 'Media' });
  const channelId = z.object({ id: z.string() }).parse(made.body).id;
  const postId = await postThrough(url, admin, channelId, [], { text: 'Look' });
  await attach(url, admin, postId, await fixture('python.png'), 'picture.png');
  await attach(url, admin, postId, await fixture('sample.mp4'), 'clip.mp4');
  const published = await adminCall(url, admin, 'POST', `/admin/posts/${postId}/publish`, {});
  expect(published.status).toBe(200);
  const form = new FormData();
  form.append('text', 'Mine too');
  form.append('image', new Blob([await fixture('python.gif')]), 'mine.gif');
  const posted = await fetch(`${url}/api/channel/${channelId}/posts/${postId}/comments`, {
    method: 'POST',
    headers: as('commenter'),
    body: form,
  });
  expect(posted.status).toBe(201);
  const comment = commentView.parse(await posted.json());
  const feed = feedView.parse(await (await feedOf(url, channelId)).json());
  const [image, video] = feed.items.find((p) => p.id === postId)?.attachments ?? [];
  const thread = commentPage.parse(await (await threadOf(url, channelId, postId)).json());
  const listed = thread.items.find((c) => c.id === comment.id);
  const commentLink = listed && 'image' in listed ? (listed.image?.url ?? '') : '';
  return {
    channelId,
    postId,
    admin,
    commentId: comment.id,
    links: { image: image?.url ?? '', video: video?.url ?? '', comment: commentLink },
  };
}

describe.each(testStorages())('signed media links on %s storage', (_kind, makeStorage) => {
  let db: TestDatabase;
  let storage: TestStorage;
  let running: RunningApp;
  let now = START + 1_000;
  let scene: Scene;
  beforeAll(async () => {
    db = await createTestDatabase();
    storage = await makeStorage();
    running = await startApp({ db, storage: storage.storage, clock: () => now });
    scene = await setScene(running.url, db.pool);
  }, 60_000);
  afterAll(async () => {
    await running.close();
    await storage.cleanup();
    await db.drop();
  });
  /** Loads a link as `<img src>` does: no Authorization, no cookie. */
  const load = (link: string, headers: Record<string, string> = {}) =>
    fetch(`${running.url}${link}`, { headers });
  const storageKeyOf = async (table: 'post_attachments' | 'comment_attachments', id: string) =>
    db.pool.oneFirst(
      table === 'post_attachments'
        ? sql.type(
            z.object({ k: z.string() }),
          )`SELECT storage_key AS k FROM post_attachments WHERE id = ${id}`
        : sql.type(
            z.object({ k: z.string() }),
          )`SELECT storage_key AS k FROM comment_attachments WHERE comment_id = ${id}`,
    );

  it('the feed and the comment list hand out signed links, not session routes', () => {
    const { postId, commentId, links } = scene;
    expect(pathOf(links.image)).toMatch(new RegExp(`^/files/posts/${postId}/[0-9a-f-]{36}$`));
    expect(pathOf(links.video)).toMatch(new RegExp(`^/files/posts/${postId}/[0-9a-f-]{36}$`));
    expect(pathOf(links.comment)).toBe(`/files/comments/${commentId}`);
    for (const link of Object.values(links)) expect(tokenOf(link)).toMatch(/^\d+\.[\w-]{43}$/);
    // Minted for this period: they expire at the end of the next one, a whole lifetime after this ends.
    const expiry = (START + PERIOD_MS) / 1000 + TTL_SECONDS;
    for (const link of Object.values(links)) expect(expiryOf(link)).toBe(expiry);
  });

  it('load with no session, with the bytes, the type, inline, nosniff and a cache that ends with the link', async () => {
    const cases = [
      [scene.links.image, 'python.png', 'image/png'],
      [scene.links.comment, 'python.gif', 'image/gif'],
      [scene.links.video, 'sample.mp4', 'video/mp4'],
    ] as const;
    for (const [link, name, type] of cases) {
      const res = await load(link);
      expect(res.status, link).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(Buffer.from(await res.arrayBuffer()).equals(await fixture(name))).toBe(true);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(res.headers.get('content-disposition')).toMatch(
        /^inline; filename=[0-9a-f-]{36}\.(png|gif|mp4)$/,
      );
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      const maxAge = expiryOf(link) - Math.ceil(now / 1000);
      expect(res.headers.get('cache-control')).toBe(`private, max-age=${maxAge}, immutable`);
      expect(maxAge).toBeGreaterThanOrEqual(TTL_SECONDS);
    }
  });

  it('serve ranges of a video (206), and 416 outside it', async () => {
    const bytes = await fixture('sample.mp4');
    const first = await load(scene.links.video, { range: 'bytes=0-9' });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-9/${bytes.length}`);
    expect(Buffer.from(await first.arrayBuffer()).equals(bytes.subarray(0, 10))).toBe(true);
    const tail = await load(scene.links.video, { range: 'bytes=-5' });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 5))).toBe(true);
    const outside = await load(scene.links.video, { range: `bytes=${bytes.length + 10}-` });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    // Only byte ranges: another unit is ignored and the whole file comes.
    const items = await load(scene.links.video, { range: 'items=0-1' });
    expect(items.status).toBe(200);
    expect((await items.arrayBuffer()).byteLength).toBe(bytes.length);
  });

  it('serve nothing for a missing, malformed, tampered, expired or foreign token', async () => {
    const { image, comment, video } = scene.links;
    const imagePath = pathOf(image);
    const token = tokenOf(image);
    const [expiry = '', signature = ''] = token.split('.');
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    const key = await storageKeyOf('post_attachments', imagePath.split('/').at(-1) ?? '');
    const past = fileLinkToken(TEST_SECRETS.FILE_URL_SECRET, key, new Date(now - 1_000));
    const cases = [
      imagePath,
      `${imagePath}?t=`,
      `${imagePath}?t=garbage`,
      `${imagePath}?t=${expiry}`,
      `${imagePath}?t=${expiry}.${flipped}`,
      `${imagePath}?t=${Number(expiry) + 3600}.${signature}`,
      `${imagePath}?t=${past}`,
      `${imagePath}?t=${fileLinkToken('another-file-secret-0123456789abcdefghij', key, new Date(now + 3_600_000))}`,
      // Another object's token: the video's on the picture, the picture's on the comment.
      `${imagePath}?t=${tokenOf(video)}`,
      `${pathOf(comment)}?t=${token}`,
      // Ids that name nothing, or are not ids.
      `/files/posts/${scene.postId}/00000000-0000-4000-8000-000000000000?t=${token}`,
      `/files/posts/00000000-0000-4000-8000-000000000000/${imagePath.split('/').at(-1) ?? ''}?t=${token}`,
      `/files/posts/x/y?t=${token}`,
      `/files/comments/not-a-uuid?t=${tokenOf(comment)}`,
      // Over-long parts are refused the same way, telling nothing.
      `${imagePath}?t=${token}${'x'.repeat(300)}`,
      `/files/comments/${'a'.repeat(100)}?t=${tokenOf(comment)}`,
      `/files/${'b'.repeat(100)}?t=${token}`,
    ];
    for (const link of cases) {
      const res = await load(link);
      expect(res.status, link).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toMatchObject({ code: 'forbidden' });
    }
  });

  it('stop working when they expire, by the same clock that minted them', async () => {
    const before = now;
    try {
      now = expiryOf(scene.links.image) * 1000 - 1;
      expect((await load(scene.links.image)).status).toBe(200);
      now += 1;
      expect((await load(scene.links.image)).status).toBe(403);
      expect((await load(scene.links.comment)).status).toBe(403);
    } finally {
      now = before;
    }
  });

  it('stop working when the post is hidden or the comment deleted, and the session routes stay', async () => {
    const { admin, channelId, postId, commentId, links } = scene;
    const attachmentId = pathOf(links.image).split('/').at(-1) ?? '';
    const own = `${running.url}/api/channel/${channelId}/posts/${postId}/attachments/${attachmentId}`;
    const withSession = await fetch(own, { headers: as('reader') });
    expect(withSession.status).toBe(200);
    expect(withSession.headers.get('content-disposition')).toMatch(/^inline; /);
    expect(Buffer.from(await withSession.arrayBuffer()).equals(await fixture('python.png'))).toBe(true);
    expect((await fetch(own)).status).toBe(401);
    const ownPicture = `${running.url}/api/channel/${channelId}/posts/${postId}/comments/${commentId}/image`;
    expect((await fetch(ownPicture, { headers: as('reader') })).status).toBe(200);

    expect((await adminCall(running.url, admin, 'POST', `/admin/posts/${postId}/hide`)).status).toBe(200);
    expect((await load(links.image)).status).toBe(403);
    expect((await adminCall(running.url, admin, 'POST', `/admin/posts/${postId}/unhide`)).status).toBe(200);
    expect((await load(links.image)).status).toBe(200);

    const deleted = await fetch(
      `${running.url}/api/channel/${channelId}/posts/${postId}/comments/${commentId}`,
      {
        method: 'DELETE',
        headers: as('commenter'),
      },
    );
    expect(deleted.status).toBe(204);
    expect((await load(links.comment)).status).toBe(403);
  });
});

describe('signed media links and what a poll costs', () => {
  // Every connection goes through the statement counter, as in poll-cost.test.ts.
  const db = useTestDatabase();
  let app: CountedApp;
  let counter: StatementCounter;
  let url = '';
  let scene: Scene;
  let now = START + 1_000;
  const background = [/FROM events/, /^LISTEN /, /pg_notify/, /advisory/, /pgboss\./];
  const pollStatements = (from: number) =>
    counter.statements.slice(from).filter((s) => !background.some((pattern) => pattern.test(s)));
  beforeAll(async () => {
    app = await startCountedApp(db, { support: { runInbox: false }, clock: () => now });
    counter = app.counter;
    url = app.running.url;
    scene = await setScene(url, db.pool);
  }, 60_000);
  afterAll(async () => {
    await app.close();
  });

  it('keep their links and tags within a period (a 304 runs no SQL), and roll both over with it', async () => {
    const { channelId, postId } = scene;
    const feed = await feedOf(url, channelId);
    const thread = await threadOf(url, channelId, postId);
    const feedTag = feed.headers.get('etag') ?? '';
    const threadTag = thread.headers.get('etag') ?? '';
    const feedBody = feedView.parse(await feed.json());
    const threadBody = commentPage.parse(await thread.json());
    expect(JSON.stringify(feedBody)).toContain(scene.links.image);
    expect(JSON.stringify(threadBody)).toContain(scene.links.comment);

    // Later in the same period: the same links, the same tags, and no statement.
    now = START + PERIOD_MS - 1;
    const from = counter.statements.length;
    expect((await feedOf(url, channelId, feedTag)).status).toBe(304);
    expect((await threadOf(url, channelId, postId, threadTag)).status).toBe(304);
    const again = await feedOf(url, channelId);
    expect(again.headers.get('etag')).toBe(feedTag);
    expect(feedView.parse(await again.json())).toEqual(feedBody);
    expect(pollStatements(from)).toEqual([]);
    // Even at the period's last instant, what a client holds works a whole lifetime more.
    expect(expiryOf(scene.links.image) * 1000 - now).toBeGreaterThanOrEqual(TTL_SECONDS * 1000);

    // The next period: new links and new tags, built from what is cached (no statement either).
    now = START + PERIOD_MS;
    const rolled = counter.statements.length;
    const newFeed = await feedOf(url, channelId, feedTag);
    const newThread = await threadOf(url, channelId, postId, threadTag);
    expect(newFeed.status).toBe(200);
    expect(newThread.status).toBe(200);
    expect(newFeed.headers.get('etag')).not.toBe(feedTag);
    expect(newThread.headers.get('etag')).not.toBe(threadTag);
    const [image] = feedView.parse(await newFeed.json()).items[0]?.attachments ?? [];
    const newThreadBody = commentPage.parse(await newThread.json());
    const picture = newThreadBody.items.find((c) => c.id === scene.commentId);
    const newComment = picture && 'image' in picture ? (picture.image?.url ?? '') : '';
    expect(pollStatements(rolled)).toEqual([]);
    const pairs: [before: string, after: string][] = [
      [scene.links.image, image?.url ?? ''],
      [scene.links.comment, newComment],
    ];
    for (const [before, after] of pairs) {
      expect(pathOf(after)).toBe(pathOf(before));
      expect(expiryOf(after)).toBe(expiryOf(before) + PERIOD_MS / 1000);
      expect(expiryOf(after) * 1000 - now).toBeGreaterThanOrEqual(TTL_SECONDS * 1000);
    }
    // The links of the period before still work, until their own expiry.
    const earlier = await fetch(`${url}${scene.links.image}`);
    expect(earlier.status).toBe(200);
    expect((await earlier.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });
});
