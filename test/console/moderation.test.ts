import { randomUUID } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCall, createTestAdmin, loginToken, type TestAdmin } from '../support/admin.ts';
import { useRunningApp } from '../support/app.ts';
import {
  type Browser,
  expectAccessible,
  expectClean,
  inspectPage,
  launchBrowser,
  openPage,
  skipBrowser,
} from '../support/browser.ts';
import { sectionsNav, signIn, WAIT } from '../support/console.ts';
import { commentAs, reportComment } from '../support/comments.ts';
import { postThrough } from '../support/posts.ts';

// The Moderation pages in a real Chromium against the real service: a moderator works the report queue
// and bans, an auditor replays a channel's moderation as it stood before the later actions.
const used = useRunningApp();
const url = () => used.running.url;

async function signInFresh(page: Page, admin: TestAdmin): Promise<void> {
  await page.goto(`${url()}/console/sign-in`);
  await signIn(page, admin);
  await page.getByRole('heading', { name: 'Channels' }).waitFor();
}

/** A channel with one published post, made by the owner through the admin API. */
async function channelWithPost(token: string, title: string): Promise<{ channelId: string; postId: string }> {
  const channel = await adminCall(url(), token, 'POST', '/admin/channels', { title });
  expect(channel.status).toBe(201);
  const channelId = (channel.body as { id: string }).id;
  const postId = await postThrough(url(), token, channelId, ['publish'], { text: `${title}: the news` });
  return { channelId, postId };
}

async function comment(channelId: string, postId: string, text: string, userId: string): Promise<string> {
  const posted = await commentAs(url(), channelId, postId, text, userId);
  expect(posted.status).toBe(201);
  return posted.id;
}

interface CommentView {
  readonly id: string;
  readonly status: string;
}

async function commentsOnServer(token: string, channelId: string): Promise<CommentView[]> {
  const answer = await adminCall(url(), token, 'GET', `/admin/channels/${channelId}/comments?limit=100`);
  expect(answer.status).toBe(200);
  return (answer.body as { items: CommentView[] }).items;
}

const statusOf = async (token: string, channelId: string, id: string) =>
  (await commentsOnServer(token, channelId)).find((c) => c.id === id)?.status;

/** An instant as a datetime-local value in the browser's zone (launchBrowser: Europe/London). */
function londonInput(instant: Date): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Europe/London',
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}`;
}

/** The list item of a list that holds `text`. */
const itemWith = (scope: Page | Locator, text: string) =>
  scope.getByRole('listitem').filter({ hasText: text });

describe.skipIf(skipBrowser)('the Moderation pages in Chromium', { timeout: 120_000 }, () => {
  let browser: Browser;
  let owner: TestAdmin;
  let moderator: TestAdmin;
  let auditor: TestAdmin;
  let ownerToken: string;
  beforeAll(async () => {
    owner = await createTestAdmin(used.db.pool, 'owner');
    moderator = await createTestAdmin(used.db.pool, 'moderator');
    auditor = await createTestAdmin(used.db.pool, 'auditor');
    ownerToken = await loginToken(url(), owner);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('lets a moderator resolve a report by hiding the comment, ban its author for a week and delete a comment', async () => {
    const { channelId, postId } = await channelWithPost(ownerToken, 'Release notes');
    const troll = `troll-${randomUUID().slice(0, 8)}`;
    const spam = await comment(channelId, postId, 'Cheap followers, write to me now', troll);
    const offTopic = await comment(channelId, postId, 'Who won the match last night?', `fan-${randomUUID()}`);
    expect(await reportComment(url(), channelId, postId, spam)).toBeLessThan(300);

    const { page, watch } = await openPage(browser, url());
    await signInFresh(page, moderator);
    for (const section of ['Reports', 'Comments', 'Bans and moderators', 'History']) {
      await expect(sectionsNav(page).getByRole('link', { name: section }).count()).resolves.toBe(1);
    }
    await expect(sectionsNav(page).getByRole('link', { name: 'Posts' }).count()).resolves.toBe(0);

    await sectionsNav(page).getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Reports' }).waitFor();
    const spamCard = itemWith(page, 'Cheap followers');
    await spamCard.waitFor();
    await spamCard.getByText(troll).waitFor();
    await spamCard.getByText('Spam', { exact: true }).waitFor();
    await inspectPage(page, 'reports');

    // A report made while the queue is open shows up without a reload: the queue polls.
    const offTopicReport = await reportComment(url(), channelId, postId, offTopic);
    expect(offTopicReport).toBeLessThan(300);
    await itemWith(page, 'Who won the match').waitFor(WAIT);

    await spamCard.getByRole('button', { name: 'Hide comment' }).click();
    await page.getByText('Report resolved: the comment hidden.').waitFor();
    await expect.poll(() => spamCard.count(), WAIT).toBe(0);
    expect(await statusOf(ownerToken, channelId, spam)).toBe('hidden');
    const open = await adminCall(url(), ownerToken, 'GET', '/admin/reports?status=open&limit=100');
    const openIds = (open.body as { items: { commentId: string }[] }).items.map((r) => r.commentId);
    expect(openIds).not.toContain(spam);
    expect(openIds).toContain(offTopic);

    // From the resolution to the ban form, with the author filled in.
    await page.getByRole('link', { name: 'Ban its author' }).click();
    await page.getByRole('heading', { name: 'Bans and moderators' }).waitFor();
    await expect(page.getByLabel('User id', { exact: true }).inputValue()).resolves.toBe(troll);
    await page.getByLabel('Duration').selectOption({ label: '7 days' });
    await page.getByRole('button', { name: 'Ban user' }).click();
    // No reason: the server's field error, next to the field and tied to it.
    const reason = page.getByLabel('Reason');
    await expect.poll(() => reason.getAttribute('aria-invalid'), WAIT).toBe('true');
    await page.getByText('The request is invalid. See the messages next to the fields.').waitFor();
    const describedBy = (await reason.getAttribute('aria-describedby')) ?? '';
    const errorId = describedBy.split(' ').find((id) => id.endsWith('-errors')) ?? '';
    await expect(page.locator(`[id="${errorId}"]`).textContent()).resolves.toMatch(/\S/u);
    await inspectPage(page, 'bans-errors');

    await reason.fill('Selling followers in the comments');
    const bannedAt = Date.now();
    await page.getByRole('button', { name: 'Ban user' }).click();
    await page.getByText(`${troll} is banned until`).waitFor();
    const bansList = page.getByRole('region', { name: 'Bans in force' });
    await itemWith(bansList, troll).waitFor();
    const bans = await adminCall(url(), ownerToken, 'GET', `/admin/channels/${channelId}/bans`);
    const ban = (
      bans.body as { items: { userId: string; until: string | null; reason: string }[] }
    ).items.find((b) => b.userId === troll);
    expect(ban?.reason).toBe('Selling followers in the comments');
    const week = 7 * 24 * 3600_000;
    expect(Date.parse(ban?.until ?? '')).toBeGreaterThanOrEqual(bannedAt + week - 1000);
    expect(Date.parse(ban?.until ?? '')).toBeLessThanOrEqual(Date.now() + week);
    // The ban holds: the troll cannot comment any more.
    expect((await commentAs(url(), channelId, postId, 'Still here', troll)).status).toBe(403);

    await page.getByLabel('User id of a new moderator').fill('helper-1');
    await page.getByRole('button', { name: 'Add moderator' }).click();
    await page.getByRole('button', { name: 'Remove helper-1 as moderator' }).waitFor();
    const moderators = await adminCall(url(), ownerToken, 'GET', `/admin/channels/${channelId}/moderators`);
    expect(moderators.body).toEqual({ items: ['helper-1'] });
    await inspectPage(page, 'bans');

    await sectionsNav(page).getByRole('link', { name: 'Comments' }).click();
    await page.getByRole('heading', { name: 'Comments' }).waitFor();
    await page.getByLabel('Status').selectOption('hidden');
    await itemWith(page, 'Cheap followers').waitFor();
    await expect(itemWith(page, 'Who won the match').count()).resolves.toBe(0);
    await page.getByLabel('Status').selectOption('');
    const offTopicCard = itemWith(page, 'Who won the match');
    await offTopicCard.getByRole('button', { name: 'Delete' }).click();
    await offTopicCard.getByLabel('Why delete this comment?').fill('Off topic');
    await inspectPage(page, 'comments');
    await offTopicCard.getByRole('button', { name: 'Delete comment' }).click();
    await page.getByText('The comment is deleted.').waitFor();
    expect(await statusOf(ownerToken, channelId, offTopic)).toBe('deleted');
    await offTopicCard.getByText('deleted', { exact: true }).waitFor();
    expectClean(watch);
    await page.close();
  });

  it('lets an auditor replay a channel as it stood before the later actions, then as it stands now', async () => {
    const { channelId, postId } = await channelWithPost(ownerToken, 'Community');
    const ana = `ana-${randomUUID().slice(0, 8)}`;
    const ben = `ben-${randomUUID().slice(0, 8)}`;
    const mia = `mia-${randomUUID().slice(0, 8)}`;
    const anaComment = await comment(channelId, postId, 'The ending was a surprise', ana);
    await comment(channelId, postId, 'Visit my profile', ben);
    const path = `/admin/channels/${channelId}`;
    expect((await adminCall(url(), ownerToken, 'PUT', `${path}/moderators/${mia}`)).status).toBe(204);

    // The instant to replay: a whole second (the field's precision) after the earlier actions and before
    // the later ones.
    const between = new Date(Math.ceil((Date.now() + 1) / 1000) * 1000);
    await expect.poll(() => Date.now() > between.getTime() + 200, WAIT).toBe(true);
    const hidden = await adminCall(url(), ownerToken, 'POST', `/admin/comments/${anaComment}/hide`, {
      reason: 'Spoils the ending',
    });
    expect(hidden.status).toBe(204);
    const until = new Date(Date.now() + 24 * 3600_000).toISOString();
    const banned = await adminCall(url(), ownerToken, 'POST', `${path}/bans`, {
      userId: ben,
      until,
      reason: 'Spam',
    });
    expect(banned.status).toBe(201);

    const { page, watch } = await openPage(browser, url());
    await signInFresh(page, auditor);
    for (const hiddenSection of ['Reports', 'Comments', 'Bans and moderators']) {
      await expect(sectionsNav(page).getByRole('link', { name: hiddenSection }).count()).resolves.toBe(0);
    }
    await sectionsNav(page).getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'Moderation history' }).waitFor();
    const events = page.getByRole('region', { name: 'Events' });
    await itemWith(events, 'Comment hidden').filter({ hasText: 'Spoils the ending' }).waitFor();
    await itemWith(events, 'User banned').filter({ hasText: ben }).waitFor();
    await itemWith(events, 'Moderator added').filter({ hasText: mia }).waitFor();

    const replay = page.getByRole('region', { name: 'Replay as of an instant' });
    await replay.getByLabel('Channel').selectOption({ label: 'Community' });
    await replay.getByText('Your time zone: Europe/London').waitFor();
    await replay.getByLabel('As of').fill(londonInput(between));
    await replay.getByRole('button', { name: 'Replay' }).click();
    const asOfThen = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium' }).format(
      between,
    );
    await replay.getByText(`As of ${asOfThen}`).waitFor();
    await itemWith(replay, ana).getByText('visible', { exact: true }).waitFor();
    await replay.getByText('No ban held.').waitFor();
    await itemWith(replay, mia).waitFor();
    expect(new URL(page.url()).searchParams.get('asOf')).toBe(between.toISOString());
    await inspectPage(page, 'history-replay');

    await replay.getByRole('button', { name: 'Now' }).click();
    await itemWith(replay, ana).getByText('hidden', { exact: true }).waitFor();
    await itemWith(replay.getByRole('region', { name: /^Bans/u }), ben).waitFor();
    await itemWith(replay, mia).waitFor();
    // The read side agrees: the comment is hidden now.
    expect(await statusOf(ownerToken, channelId, anaComment)).toBe('hidden');

    // The history's filters, and a filter the server refuses, its error next to its field.
    await events.getByLabel('User id').fill(ben);
    await events.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => itemWith(events, 'Comment hidden').count(), WAIT).toBe(0);
    await itemWith(events, 'User banned').waitFor();
    await events.getByLabel('User id').fill('');
    await events.getByLabel('Comment id').fill('not-a-comment-id');
    await events.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => events.getByLabel('Comment id').getAttribute('aria-invalid'), WAIT).toBe('true');
    await inspectPage(page, 'history-errors');
    expectClean(watch);
    await page.close();
  });

  it('keeps the Moderation pages from a role without their permission', async () => {
    const author = await createTestAdmin(used.db.pool, 'author');
    const { page, watch } = await openPage(browser, url());
    await signInFresh(page, author);
    for (const section of ['reports', 'comments', 'bans', 'history']) {
      await page.goto(`${url()}/console/${section}`);
      await page.getByRole('heading', { name: 'Not available to your role' }).waitFor();
    }
    await expectAccessible(page);
    expectClean(watch);
    await page.close();
  });
});
