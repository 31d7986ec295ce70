import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { postLogin, seedOwner } from './admin-session.ts';
import type { Target } from './load.ts';
import type { Service } from './targets.ts';

const PNG = new URL('../test/fixtures/files/python.png', import.meta.url);
const THUMBS_UP = encodeURIComponent('👍');
const REACTORS = 4;
export const FEED_READER_ID = 'bench-feed-reader';

/** What the seeding made: a channel, its published posts (oldest first) and the reader's feed. */
export interface SeededChannel {
  readonly channelId: string;
  readonly postIds: readonly string[];
  /** The first page of the feed, answered 200 (no If-None-Match). */
  readonly feed200: Target;
  /** The same request with the ETag of a 200: answered 304. */
  readonly feed304: Target;
}

const created = z.object({ id: z.uuid() });
const feedPage = z.object({
  items: z.array(
    z.object({
      attachments: z.array(z.unknown()).min(1),
      buttons: z.array(z.unknown()).min(1),
      reactions: z.object({
        counts: z.object({ '👍': z.number().min(REACTORS) }),
        mine: z.array(z.string()),
      }),
    }),
  ),
  nextCursor: z.string(),
});

/** One request of the seeding; anything but `status` stops the bench. */
export async function call(url: string, init: RequestInit, status: number): Promise<unknown> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (response.status !== status) {
    throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text.slice(0, 300)}`);
  }
  return text === '' ? null : JSON.parse(text);
}

/** The bench owner, signed in through the admin API: its headers, and a JSON POST that must answer `status`. */
export async function ownerSession(service: Service, signal: AbortSignal) {
  const { base } = service;
  const login = await postLogin(base, await seedOwner(service.pool), signal);
  const { token } = z.object({ token: z.string() }).parse(await login.json());
  const admin = { authorization: `Bearer ${token}` };
  const json = { ...admin, 'content-type': 'application/json' };
  const post = (path: string, body: unknown, status: number) =>
    call(`${base}${path}`, { method: 'POST', headers: json, body: JSON.stringify(body), signal }, status);
  return { admin, post };
}

/**
 * A poll's two targets, checked once: without `If-None-Match` it must answer 200 with 20 items that
 * `page` accepts and an ETag; with that ETag, 304.
 */
export async function pollTargets(
  name: string,
  url: string,
  headers: Readonly<Record<string, string>>,
  page: z.ZodType<{ readonly items: readonly unknown[] }>,
  signal: AbortSignal,
): Promise<{ readonly ok: Target; readonly notModified: Target }> {
  const first = await fetch(url, { headers, signal });
  const parsed = page.safeParse(await first.json());
  const etag = first.headers.get('etag');
  if (first.status !== 200 || !parsed.success || parsed.data.items.length !== 20 || !etag) {
    throw new Error(
      `${name} check failed: ${first.status}, ${parsed.error?.message ?? 'not 20 items or no ETag'}`,
    );
  }
  const notModified = { url, headers: { ...headers, 'if-none-match': etag }, expectedStatus: 304 };
  const again = await fetch(url, { headers: notModified.headers, signal });
  if (again.status !== 304) throw new Error(`${name} check with If-None-Match failed: ${again.status}`);
  return { ok: { url, headers }, notModified };
}

/**
 * Through the real admin API: an owner signs in, creates a channel and `postCount` posts, each with two
 * buttons and a PNG attachment, published; then `REACTORS` users and the reader react 👍 to every post.
 */
export async function seedChannel(
  service: Service,
  postCount: number,
  signal: AbortSignal,
): Promise<SeededChannel> {
  const { base } = service;
  const { admin, post } = await ownerSession(service, signal);
  const channel = created.parse(await post('/admin/channels', { title: 'Bench channel' }, 201));
  const png = await readFile(PNG);
  const postIds: string[] = [];
  // One after the other, so the feed's order (newest first) is the order made here.
  for (let n = 0; n < postCount; n++) {
    const buttons = [
      { label: 'Open', url: 'https://example.com' },
      { label: 'Docs', url: `https://example.com/docs/${n}` },
    ];
    const text = `Bench post ${n}: ${'a line of text that a channel post could well hold. '.repeat(4)}`;
    const { id } = created.parse(await post(`/admin/channels/${channel.id}/posts`, { text, buttons }, 201));
    const form = new FormData();
    form.append('file', new Blob([png], { type: 'image/png' }), 'python.png');
    const attachments = `${base}/admin/posts/${id}/attachments`;
    await call(attachments, { method: 'POST', headers: admin, body: form, signal }, 200);
    await post(`/admin/posts/${id}/publish`, {}, 200);
    postIds.push(id);
  }

  const reader = { authorization: `Bearer ${service.sessionToken(FEED_READER_ID)}` };
  const users = [FEED_READER_ID, ...Array.from({ length: REACTORS }, (_, i) => `bench-reactor-${i}`)];
  // A user's reactions share one stream: each user reacts to one post after the other.
  await Promise.all(
    users.map(async (user) => {
      const authorization = `Bearer ${service.sessionToken(user)}`;
      for (const postId of postIds) {
        const url = `${base}/api/channel/${channel.id}/posts/${postId}/reactions/${THUMBS_UP}`;
        await call(url, { method: 'PUT', headers: { authorization }, signal }, 200);
      }
    }),
  );

  const feedUrl = `${base}/api/channel/${channel.id}/posts`;
  const feed = await pollTargets('feed', feedUrl, reader, feedPage, signal);
  return { channelId: channel.id, postIds, feed200: feed.ok, feed304: feed.notModified };
}
