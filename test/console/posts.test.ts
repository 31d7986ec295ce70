import { crc32, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/http/logger.ts';
import { type ScheduledPublisher, startScheduledPublisher } from '../../src/jobs/publish-scheduled.ts';
import type { LeaderLocks } from '../../src/db/leader-lock.ts';
import { adminCall, createTestAdmin, loginToken, type TestAdmin } from '../support/admin.ts';
import { bearer, TEST_SECRETS, useRunningApp } from '../support/app.ts';
import {
  type Browser,
  expectClean,
  inspectPage,
  launchBrowser,
  openPage,
  skipBrowser,
} from '../support/browser.ts';
import { sectionsNav, signIn, WAIT } from '../support/console.ts';
import { sessionToken } from '../support/jwt.ts';
import { replicaLocks } from '../support/replica.ts';

// An author's posts in a real Chromium against the real service, with the schedule job running as the
// service runs it (startApp leaves the jobs off).
const used = useRunningApp();
const url = () => used.running.url;

interface PostView {
  readonly id: string;
  readonly status: string;
  readonly text: string;
  readonly publishAt: string | null;
  readonly buttons: { readonly id: string; readonly label: string; readonly url: string }[];
  readonly attachments: { readonly kind: string; readonly width: number | null }[];
}

interface Stats {
  readonly views: { readonly total: number };
  readonly clicks: { readonly total: number };
  readonly reactions: Record<string, number>;
}

/** A PNG of `size`×`size` pixels in one colour, made here: signature, IHDR, one IDAT, IEND. */
function png(size: number, rgb: readonly [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per channel, RGB, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => rgb).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: size }, () => row)));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An instant as a datetime-local value on a London wall clock, the browser's zone (launchBrowser). */
function londonInput(date: Date): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Europe/London',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}`;
}

const alice = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'alice'));
const bob = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'bob'));

describe.skipIf(skipBrowser)('an author in the console', { timeout: 120_000 }, () => {
  let browser: Browser;
  let author: TestAdmin;
  let token = '';
  let channelId = '';
  let locks: LeaderLocks;
  let scheduler: ScheduledPublisher;
  beforeAll(async () => {
    const owner = await loginToken(url(), await createTestAdmin(used.db.pool, 'owner'));
    const made = await adminCall(url(), owner, 'POST', '/admin/channels', {
      title: 'Release notes',
      allowedReactions: ['👍', '🔥'],
    });
    channelId = (made.body as { id: string }).id;
    author = await createTestAdmin(used.db.pool, 'author');
    token = await loginToken(url(), author);
    locks = replicaLocks(used.db.url);
    scheduler = startScheduledPublisher({
      pool: used.db.pool,
      store: used.running.eventSourcing.store,
      locks,
      logger: createLogger('silent'),
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
    await scheduler.stop();
    await locks.close();
  });

  const postsOnServer = async (status = 'draft'): Promise<PostView[]> => {
    const answer = await adminCall(
      url(),
      token,
      'GET',
      `/admin/channels/${channelId}/posts?status=${status}`,
    );
    expect(answer.status).toBe(200);
    return (answer.body as { items: PostView[] }).items;
  };
  const postOnServer = async (id: string): Promise<PostView | undefined> => {
    const answer = await adminCall(url(), token, 'GET', `/admin/channels/${channelId}/posts?limit=100`);
    return (answer.body as { items: PostView[] }).items.find((post) => post.id === id);
  };

  it('composes a post with a picture and a button, schedules it, sees it published and reads its stats', async () => {
    const { page, watch } = await openPage(browser, url());
    await page.goto(`${url()}/console/sign-in`);
    await signIn(page, author);
    await page.getByRole('heading', { name: 'Channels' }).waitFor();
    await sectionsNav(page).getByRole('link', { name: 'Posts' }).click();
    await page.getByText('No post in this channel yet.').waitFor();
    await page.getByRole('link', { name: 'New post' }).click();
    await page.getByRole('heading', { name: 'New post' }).waitFor();

    await page.getByLabel('Text').fill('Version 3.0 is out: offline mode and a calmer inbox.');
    await page.getByLabel('Add media').setInputFiles({
      name: 'inbox.png',
      mimeType: 'image/png',
      buffer: png(48, [29, 78, 216]),
    });
    // Previewed before any upload, from a blob: URL the CSP allows.
    const preview = page.getByRole('img', { name: 'Preview of inbox.png' });
    await preview.waitFor();
    expect(await preview.getAttribute('src')).toMatch(/^blob:/);

    // Eight buttons at most: the form refuses a ninth, and says so next to the buttons.
    const add = page.getByRole('button', { name: 'Add a button' });
    for (let n = 1; n <= 8; n += 1) await add.click();
    const labels = page.getByLabel(/^Button \d label$/);
    await expect(labels.count()).resolves.toBe(8);
    await add.click();
    await page.getByText('A post has at most 8 buttons.').waitFor();
    await expect(labels.count()).resolves.toBe(8);
    await inspectPage(page, 'post-new-buttons');
    for (let n = 8; n > 1; n -= 1)
      await page.getByRole('button', { name: `Remove button ${String(n)}` }).click();
    await expect(labels.count()).resolves.toBe(1);

    // An http address passes the browser (the form does not validate) and the server refuses it, at its field.
    await page.getByLabel('Button 1 label').fill('Read the notes');
    const buttonUrl = page.getByLabel('Button 1 URL');
    await buttonUrl.fill('http://example.com/notes');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(() => buttonUrl.getAttribute('aria-invalid'), WAIT).toBe('true');
    const describedBy = (await buttonUrl.getAttribute('aria-describedby')) ?? '';
    await expect(page.locator(`[id="${describedBy}"]`).textContent()).resolves.not.toBe('');
    await page.getByText('The request is invalid. See the messages next to the fields.').waitFor();
    expect(await postsOnServer()).toEqual([]);
    await inspectPage(page, 'post-new-errors');

    await buttonUrl.fill('https://example.com/notes');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('heading', { name: 'Edit post' }).waitFor();
    await page.getByText('Draft saved.').waitFor();
    const [draft] = await postsOnServer();
    expect(draft).toMatchObject({
      text: 'Version 3.0 is out: offline mode and a calmer inbox.',
      buttons: [{ label: 'Read the notes', url: 'https://example.com/notes' }],
      attachments: [{ kind: 'image', width: 48 }],
    });
    const postId = draft?.id ?? '';
    // The picture keeps its preview once uploaded.
    await page.getByRole('img', { name: 'Attachment 1' }).waitFor();
    await page.getByText('In your time zone, Europe/London.').waitFor();
    await inspectPage(page, 'post-draft');

    // A few seconds ahead, on the admin's wall clock; the API gets the instant.
    const publishAt = new Date(Math.floor((Date.now() + 8_000) / 1000) * 1000);
    await page.getByLabel('Publish at').fill(londonInput(publishAt));
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Scheduled for' }).waitFor();
    expect(await postOnServer(postId)).toMatchObject({
      status: 'scheduled',
      publishAt: publishAt.toISOString(),
    });

    await sectionsNav(page).getByRole('link', { name: 'Posts' }).click();
    const card = page.getByRole('listitem').filter({ hasText: 'Version 3.0 is out' });
    await card.getByText('published', { exact: true }).waitFor({ timeout: 45_000 });
    await inspectPage(page, 'posts-published');

    // Readers see it, press its button and react.
    const client = `${url()}/api/channel/${channelId}`;
    const buttonId = (await postOnServer(postId))?.buttons[0]?.id ?? '';
    for (const reader of [alice, bob]) {
      const viewed = await fetch(`${client}/views`, {
        method: 'POST',
        headers: { ...reader, 'content-type': 'application/json' },
        body: JSON.stringify({ postIds: [postId] }),
      });
      expect(viewed.status).toBe(204);
      const clicked = await fetch(`${client}/posts/${postId}/buttons/${buttonId}/click`, {
        method: 'POST',
        headers: reader,
      });
      expect(clicked.status).toBe(200);
    }
    for (const [reader, emoji] of [
      [alice, '🔥'],
      [bob, '👍'],
    ] as const) {
      const reacted = await fetch(`${client}/posts/${postId}/reactions/${encodeURIComponent(emoji)}`, {
        method: 'PUT',
        headers: reader,
      });
      expect(reacted.ok).toBe(true);
    }
    const stats = async () =>
      (await adminCall(url(), token, 'GET', `/admin/posts/${postId}/stats`)).body as Stats;
    await expect
      .poll(async () => {
        const { views, clicks, reactions } = await stats();
        return [views.total, clicks.total, Object.keys(reactions).length];
      }, WAIT)
      .toEqual([2, 2, 2]);

    await card.getByRole('link', { name: 'Stats' }).click();
    await page.getByRole('heading', { name: 'Post stats' }).waitFor();
    const today = new Intl.DateTimeFormat('en-GB', {
      day: 'numeric',
      month: 'short',
      timeZone: 'UTC',
    }).format(new Date());
    await page.getByRole('img', { name: `Views per day (UTC): ${today} 2` }).waitFor();
    await page.getByRole('img', { name: `Clicks per day (UTC): ${today} 2` }).waitFor();
    await page.getByRole('img', { name: /^Reactions by emoji: (👍 1, 🔥 1|🔥 1, 👍 1)$/u }).waitFor();
    await page.getByRole('img', { name: 'Clicks by button: Read the notes 2' }).waitFor();
    await page.getByText('No push notification has been sent for this post.').waitFor();
    await inspectPage(page, 'post-stats');
    expectClean(watch);
    await page.close();
  });

  it('publishes a draft now with a push, hides it, shows it again and deletes it after asking', async () => {
    const made = await adminCall(url(), token, 'POST', `/admin/channels/${channelId}/posts`, {
      text: 'Maintenance tonight from 22:00.',
    });
    const postId = (made.body as { id: string }).id;
    const { page, watch } = await openPage(browser, url());
    await page.goto(`${url()}/console/sign-in`);
    await signIn(page, author);
    await page.getByRole('heading', { name: 'Channels' }).waitFor();
    await page.goto(`${url()}/console/posts/${postId}`);
    await page.getByRole('heading', { name: 'Edit post' }).waitFor();

    // An unsaved edit holds the publishing back: it would not be in what is published.
    await page.getByLabel('Text').fill('Maintenance tonight from 22:00 to 23:00.');
    await expect(page.getByRole('button', { name: 'Publish now' }).isDisabled()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();

    await page.getByLabel('Send a push notification to subscribers').check();
    await page.getByRole('button', { name: 'Publish now' }).click();
    await page.getByText('Published. The push notification is on its way.').waitFor();
    expect(await postOnServer(postId)).toMatchObject({
      status: 'published',
      text: 'Maintenance tonight from 22:00 to 23:00.',
    });

    // Its stats follow the push as it goes out (no reader has a device here: nothing to send).
    await page.getByRole('link', { name: 'Stats of this post' }).click();
    await page.getByRole('heading', { name: 'Push notification' }).waitFor();
    await page.getByText(/(No reader had a device to send it to|No device is queued yet)\.$/u).waitFor();
    await inspectPage(page, 'post-stats-push');
    await page.getByRole('link', { name: 'Edit this post' }).click();

    await page.getByRole('button', { name: 'Hide from readers' }).click();
    await page.getByText('Hidden from readers.').waitFor();
    expect((await postOnServer(postId))?.status).toBe('hidden');
    await page.getByRole('button', { name: 'Show to readers again' }).click();
    await page.getByText('Shown to readers again.').waitFor();
    expect((await postOnServer(postId))?.status).toBe('published');

    // Asked first, in a modal dialog whose safe answer has the focus; Escape keeps the post.
    await page.getByRole('button', { name: 'Delete post…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this post?' });
    await dialog.waitFor();
    await expect(page.evaluate<string>('document.activeElement.textContent')).resolves.toBe('Keep the post');
    await inspectPage(page, 'post-delete-dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await postOnServer(postId))?.status).toBe('published');
    await page.getByRole('button', { name: 'Delete post…' }).click();
    await dialog.getByRole('button', { name: 'Delete for good' }).click();
    await page.getByText('Post deleted.').waitFor();
    expect(await postsOnServer('deleted')).toEqual([expect.objectContaining({ id: postId })]);
    expectClean(watch);
    await page.close();
  });
});
