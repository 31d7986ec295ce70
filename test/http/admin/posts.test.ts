import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { imageSize } from 'image-size';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postStream } from '../../../src/events/posts.ts';
import { postsProjection } from '../../../src/projections/posts.ts';
import { adminCall, createTestAdmin, loginToken } from '../../support/admin.ts';
import { bearer, TEST_SECRETS, useRunningApp } from '../../support/app.ts';
import { sessionToken } from '../../support/jwt.ts';
import { localTestStorage, type TestStorage } from '../../support/storage.ts';
import { expectRebuildEqualsLive } from '../../support/rebuild.ts';

let storage: TestStorage;
// Its own storage, created before the app, so the test can list what was kept.
beforeAll(async () => {
  storage = await localTestStorage();
});
afterAll(async () => {
  await storage.cleanup();
});
const used = useRunningApp({
  get storage() {
    return storage.storage;
  },
});
const url = () => used.running.url;
let token = '';
let channelId = '';
beforeAll(async () => {
  token = await loginToken(url(), await createTestAdmin(used.db.pool, 'author'));
  const owner = await loginToken(url(), await createTestAdmin(used.db.pool, 'owner'));
  channelId = (
    (await adminCall(url(), owner, 'POST', '/admin/channels', { title: 'Posts' })).body as { id: string }
  ).id;
});
const call = (method: string, path: string, body?: unknown) => adminCall(url(), token, method, path, body);

interface Post {
  id: string;
  status: string;
  text: string;
  publishAt: string | null;
  publishedAt: string | null;
  editedAt: string | null;
  buttons: { id: string; label: string; url: string }[];
}
const draft = async (body: Record<string, unknown> = { text: 'Hello' }) => {
  const answer = await call('POST', `/admin/channels/${channelId}/posts`, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body as Post;
};
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

describe('admin posts', () => {
  it('take a post through its whole life, each answer showing the new status', async () => {
    const post = await draft({ text: 'Hello', buttons: [{ label: 'Open', url: 'https://example.com' }] });
    expect(post).toMatchObject({ status: 'draft', text: 'Hello', publishedAt: null });
    const steps: [string, string, unknown, string][] = [
      ['POST', 'schedule', { publishAt: inAnHour(), notify: true }, 'scheduled'],
      ['POST', 'unschedule', undefined, 'draft'],
      ['POST', 'publish', {}, 'published'],
      ['POST', 'hide', undefined, 'hidden'],
      ['POST', 'unhide', undefined, 'published'],
    ];
    for (const [method, step, body, status] of steps) {
      const answer = await call(method, `/admin/posts/${post.id}/${step}`, body);
      expect(answer.status, `${step}: ${JSON.stringify(answer.body)}`).toBe(200);
      expect((answer.body as Post).status).toBe(status);
    }
    const deleted = await call('DELETE', `/admin/posts/${post.id}`);
    expect((deleted.body as Post).status).toBe('deleted');
    const events = await used.running.eventSourcing.store.readStream(postStream(post.id));
    expect(events.map((e) => e.type)).toEqual([
      'postDrafted',
      'postScheduled',
      'postUnscheduled',
      'postPublished',
      'postHidden',
      'postUnhidden',
      'postDeleted',
    ]);
  });

  it('refuses a move the lifecycle does not have with 409, naming the current status', async () => {
    const post = await draft();
    const answer = await call('POST', `/admin/posts/${post.id}/hide`);
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ code: 'conflict', detail: 'A post that is draft cannot be hidden.' });
    await call('DELETE', `/admin/posts/${post.id}`);
    const edit = await call('PATCH', `/admin/posts/${post.id}`, { text: 'Too late' });
    expect(edit.body).toMatchObject({ code: 'conflict', detail: 'A post that is deleted cannot be edited.' });
  });

  it('reads one post by its id, whatever its status, as the list shows it', async () => {
    const post = await draft({ text: 'One of a kind' });
    const one = await call('GET', `/admin/posts/${post.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(post);
    await call('DELETE', `/admin/posts/${post.id}`);
    expect((await call('GET', `/admin/posts/${post.id}`)).body).toMatchObject({ status: 'deleted' });
    expect((await call('GET', `/admin/posts/${randomUUID()}`)).status).toBe(404);
    expect((await call('GET', '/admin/posts/not-a-uuid')).status).toBe(400);
  });

  it('answers 404 for an unknown post or channel, and 400 for a schedule in the past or a bad button', async () => {
    expect((await call('POST', `/admin/posts/${randomUUID()}/publish`, {})).status).toBe(404);
    expect((await call('POST', `/admin/channels/${randomUUID()}/posts`, { text: 'x' })).status).toBe(404);
    const post = await draft();
    const past = await call('POST', `/admin/posts/${post.id}/schedule`, {
      publishAt: '2020-01-01T00:00:00Z',
    });
    expect(past.status).toBe(400);
    for (const button of [
      { label: 'Open', url: 'http://example.com' },
      { label: '', url: 'https://example.com' },
      { label: 'x'.repeat(41), url: 'https://example.com' },
      { label: 'Open', url: 'javascript:alert(1)' },
    ]) {
      expect((await call('PATCH', `/admin/posts/${post.id}`, { buttons: [button] })).status).toBe(400);
    }
    const nine = Array.from({ length: 9 }, (_, i) => ({ label: `B${i}`, url: 'https://example.com' }));
    expect((await call('PATCH', `/admin/posts/${post.id}`, { buttons: nine })).status).toBe(400);
  });

  it('refuses to publish an empty post', async () => {
    const post = await draft({ text: '' });
    expect((await call('POST', `/admin/posts/${post.id}/publish`, {})).status).toBe(409);
  });

  it('sets editedAt only for edits of a live post, and keeps button ids that are sent back', async () => {
    const post = await draft({ buttons: [{ label: 'A', url: 'https://a.example.com' }] });
    const edited = (await call('PATCH', `/admin/posts/${post.id}`, { text: 'Draft edit' })).body as Post;
    expect(edited.editedAt).toBeNull();
    await call('POST', `/admin/posts/${post.id}/publish`, {});
    const [kept] = post.buttons;
    const live = (
      await call('PATCH', `/admin/posts/${post.id}`, {
        buttons: [kept, { label: 'B', url: 'https://b.example.com' }],
      })
    ).body as Post;
    expect(live.editedAt).not.toBeNull();
    expect(live.buttons[0]).toEqual(kept);
    expect(live.buttons[1]?.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lists a channel by status, newest first, page by page', async () => {
    const made = [await draft({ text: 'one' }), await draft({ text: 'two' }), await draft({ text: 'three' })];
    await call('POST', `/admin/posts/${made[1]?.id ?? ''}/publish`, {});
    const drafts: Post[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `status=draft&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await call('GET', `/admin/channels/${channelId}/posts?${query}`)).body as {
        items: Post[];
        nextCursor: string | null;
      };
      drafts.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(drafts.every((p) => p.status === 'draft')).toBe(true);
    expect(drafts.map((p) => p.id)).toContain(made[2]?.id);
    expect(drafts.map((p) => p.id)).not.toContain(made[1]?.id);
    expect(drafts.findIndex((p) => p.id === made[2]?.id)).toBeLessThan(
      drafts.findIndex((p) => p.id === made[0]?.id),
    );
  });

  it('rebuilds every post table from the events alone, equal to the live ones', async () => {
    const [posts] = await expectRebuildEqualsLive(used, postsProjection);
    expect(posts?.length).toBeGreaterThan(5);
  });
});

describe('post media', () => {
  const fixture = (name: string) => readFile(new URL(`../../fixtures/files/${name}`, import.meta.url));
  const form = (bytes: Uint8Array, name: string) => {
    const body = new FormData();
    body.append('file', new Blob([bytes]), name);
    return body;
  };
  interface WithMedia {
    attachments: {
      id: string;
      kind: string;
      contentType: string;
      size: number;
      width: number | null;
      height: number | null;
    }[];
  }

  it('takes an image through the upload checks, with its size, and serves it to clients once published', async () => {
    const png = await fixture('python.png');
    const post = await draft({ text: 'With a picture' });
    const attached = await call('POST', `/admin/posts/${post.id}/attachments`, form(png, 'whatever.bin'));
    expect(attached.status, JSON.stringify(attached.body)).toBe(200);
    const [media] = (attached.body as WithMedia).attachments;
    expect(media).toMatchObject({ kind: 'image', contentType: 'image/png', size: png.length });
    const dims = imageSize(png);
    expect([media?.width, media?.height]).toEqual([dims.width, dims.height]);

    const client = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'reader'));
    const mediaUrl = `${url()}/api/channel/${channelId}/posts/${post.id}/attachments/${media?.id ?? ''}`;
    expect((await fetch(mediaUrl, { headers: client })).status).toBe(404); // not published yet
    await call('POST', `/admin/posts/${post.id}/publish`, {});
    const feedPost = (await fetch(`${url()}/api/channel/${channelId}/posts/${post.id}`, {
      headers: client,
    }).then((r) => r.json())) as { attachments: { url: string; width?: number }[] };
    // The feed links the signed address, which needs no session (decision 033).
    const signedPath = `/files/posts/${post.id}/${media?.id ?? ''}`;
    expect(feedPost.attachments[0]).toMatchObject({
      url: expect.stringMatching(new RegExp(`^${signedPath}\\?t=\\d+\\.[\\w-]{43}$`)) as string,
      width: dims.width,
    });
    const signedUrl = `${url()}${feedPost.attachments[0]?.url ?? ''}`;
    const signed = await fetch(signedUrl);
    expect(signed.status).toBe(200);
    expect(signed.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await signed.arrayBuffer()).equals(png)).toBe(true);
    const bytes = await fetch(mediaUrl, { headers: client });
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await bytes.arrayBuffer()).equals(png)).toBe(true);

    const removed = await call('DELETE', `/admin/posts/${post.id}/attachments/${media?.id ?? ''}`);
    expect((removed.body as WithMedia & { editedAt: string | null }).attachments).toEqual([]);
    expect((await fetch(mediaUrl, { headers: client })).status).toBe(404);
    expect((await fetch(signedUrl)).status).toBe(403);
  });

  it('refuses what the upload checks refuse, and media for a deleted post, keeping nothing', async () => {
    const post = await draft();
    const exe = await call(
      'POST',
      `/admin/posts/${post.id}/attachments`,
      form(await fixture('program.exe'), 'a.png'),
    );
    expect(exe.status).toBe(415);
    await call('DELETE', `/admin/posts/${post.id}`);
    const late = await call(
      'POST',
      `/admin/posts/${post.id}/attachments`,
      form(await fixture('python.gif'), 'a.gif'),
    );
    expect(late.status).toBe(409);
    expect(await storage.keys()).not.toEqual(expect.arrayContaining([expect.stringContaining(post.id)]));
  });
});
