import { randomInt } from 'node:crypto';
import type { Locator } from 'playwright-core';
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

// The console in a real Chromium against the real service (embedded PostgreSQL, the Intercom sandbox).
// Behind one trusted proxy, so a tab can speak from an address of its own: the lockout locks only it.
const MAX_FAILURES = 3;
const used = useRunningApp({
  env: { TRUST_PROXY_HOPS: '1', ADMIN_LOGIN_MAX_FAILURES: String(MAX_FAILURES) },
});
const url = () => used.running.url;

interface ChannelView {
  readonly id: string;
  readonly title: string;
  readonly allowedReactions: string[];
  readonly commentsEnabled: boolean;
  readonly commentRate: { readonly intervalSeconds: number; readonly burst: number };
}

async function channelsOnServer(admin: TestAdmin): Promise<ChannelView[]> {
  const token = await loginToken(url(), admin);
  const answer = await adminCall(url(), token, 'GET', '/admin/channels');
  expect(answer.status).toBe(200);
  return (answer.body as { items: ChannelView[] }).items;
}

// A browser's steps take seconds on a busy machine: longer than the suite's default per test.
describe.skipIf(skipBrowser)('the admin console in Chromium', { timeout: 90_000 }, () => {
  let browser: Browser;
  let owner: TestAdmin;
  let author: TestAdmin;
  beforeAll(async () => {
    owner = await createTestAdmin(used.db.pool, 'owner');
    author = await createTestAdmin(used.db.pool, 'author');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('signs an owner in, creates a channel with field errors on the way, edits it and signs out', async () => {
    const { page, watch } = await openPage(browser, url());
    await page.goto(`${url()}/console`);
    await expect.poll(() => page.url(), WAIT).toBe(`${url()}/console/sign-in`);
    await inspectPage(page, 'sign-in');

    await signIn(page, owner);
    await page.getByRole('heading', { name: 'Channels' }).waitFor();
    await page.getByText('There is no channel yet.').waitFor();
    expect(await page.title()).toBe('Channels · Support channel console');
    for (const section of ['Channels', 'Posts', 'Reports', 'CSAT', 'Admins', 'Audit log']) {
      await expect(sectionsNav(page).getByRole('link', { name: section }).count()).resolves.toBe(1);
    }
    // The token is this tab's alone: in sessionStorage, never in localStorage.
    await expect(page.evaluate<number>('localStorage.length')).resolves.toBe(0);
    await expect(page.evaluate<number>('sessionStorage.length')).resolves.toBe(1);
    await inspectPage(page, 'channels-empty');

    await page.getByRole('link', { name: 'New channel' }).click();
    await page.getByRole('heading', { name: 'New channel' }).waitFor();
    await page.getByLabel('Title').fill('Release notes');
    await page.getByLabel('Description').fill('What changed in the app, every week.');
    await page.getByLabel('Allowed reactions').fill('👍 ok');
    await page.getByRole('button', { name: 'Create channel' }).click();
    // The server's field error, next to its field and tied to it.
    const reactions = page.getByLabel('Allowed reactions');
    await expect.poll(() => reactions.getAttribute('aria-invalid'), WAIT).toBe('true');
    await page.getByText('must be one emoji').waitFor();
    await page.getByText('The request is invalid. See the messages next to the fields.').waitFor();
    await inspectPage(page, 'channel-new-errors');
    expect(await channelsOnServer(owner)).toEqual([]);

    await reactions.fill('👍 🔥');
    await page.getByRole('button', { name: 'Create channel' }).click();
    await page.getByRole('heading', { name: 'Edit Release notes' }).waitFor();
    await page.getByText('Channel created.').waitFor();
    const [created] = await channelsOnServer(owner);
    expect(created).toMatchObject({ title: 'Release notes', allowedReactions: ['👍', '🔥'] });

    await page.getByLabel('Title').fill('Weekly release notes');
    await page.getByLabel('Slow mode: seconds between comments').fill('30');
    // Without comments, slow mode has nothing to slow: its fields are disabled, and keep their values.
    await page.getByLabel('Readers may comment').uncheck();
    await expect(page.getByLabel('Slow mode: seconds between comments').isDisabled()).resolves.toBe(true);
    await expect(page.getByLabel('Comments allowed at once').isDisabled()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    expect(await channelsOnServer(owner)).toEqual([
      expect.objectContaining({
        id: created?.id,
        title: 'Weekly release notes',
        commentsEnabled: false,
        commentRate: { intervalSeconds: 30, burst: 3 },
      }),
    ]);
    await inspectPage(page, 'channel-edit');

    await sectionsNav(page).getByRole('link', { name: 'Channels' }).click();
    await page.getByRole('heading', { name: 'Weekly release notes' }).waitFor();
    await inspectPage(page, 'channels');

    const token = await loginToken(url(), owner);
    const draft = await adminCall(url(), token, 'POST', `/admin/channels/${created?.id ?? ''}/posts`, {
      text: 'Version 2.4 is out: dark mode, faster search and a new widget.',
    });
    expect(draft.status).toBe(201);
    await sectionsNav(page).getByRole('link', { name: 'Posts' }).click();
    await page.getByText('Version 2.4 is out').waitFor();
    await page.getByLabel('Status').selectOption('published');
    await page.getByText('No post is published yet.').waitFor();
    expect(new URL(page.url()).searchParams.get('status')).toBe('published');
    await page.getByLabel('Status').selectOption('draft');
    await page.getByText('Version 2.4 is out').waitFor();
    await inspectPage(page, 'posts');

    await page.goto(`${url()}/console/nowhere`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await inspectPage(page, 'not-found');

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByText('You are signed out.').waitFor();
    await expect(page.evaluate<number>('sessionStorage.length')).resolves.toBe(0);
    await page.goto(`${url()}/console/channels`);
    await expect.poll(() => page.url(), WAIT).toBe(`${url()}/console/sign-in`);
    expectClean(watch);
    await page.close();
  });

  it('shows an author only what the role can do', async () => {
    const { page, watch } = await openPage(browser, url());
    await page.goto(`${url()}/console/sign-in`);
    await signIn(page, author);
    await page.getByRole('heading', { name: 'Channels' }).waitFor();
    await sectionsNav(page).getByRole('link', { name: 'Posts' }).waitFor();
    for (const hidden of ['Reports', 'History', 'CSAT', 'Admins', 'Audit log']) {
      await expect(sectionsNav(page).getByRole('link', { name: hidden }).count()).resolves.toBe(0);
    }
    await expect(page.getByRole('link', { name: 'New channel' }).count()).resolves.toBe(0);
    await expect(page.getByRole('link', { name: /^Edit / }).count()).resolves.toBe(0);
    // The keyboard's first stop skips the bar and the navigation, straight to the page.
    await page.keyboard.press('Tab');
    await expect(page.evaluate<string>('document.activeElement.textContent')).resolves.toBe(
      'Skip to content',
    );
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate<string>('document.activeElement.id'), WAIT).toBe('content');
    await inspectPage(page, 'channels-author');

    await page.goto(`${url()}/console/channels/new`);
    await page.getByRole('heading', { name: 'Not available to your role' }).waitFor();
    await expectAccessible(page);
    expectClean(watch);
    await page.close();
  });

  it('works from the keyboard alone: signs in, reaches a section and fills a form', async () => {
    const { page, watch } = await openPage(browser, url());
    await page.goto(`${url()}/console/sign-in`);
    // Tab until the control has the focus, as a keyboard user would: it must be reachable at all.
    const tabTo = async (target: Locator) => {
      for (let stops = 0; stops < 40; stops += 1) {
        if ((await target.and(page.locator(':focus')).count()) > 0) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`${target.toString()} is not reachable with Tab`);
    };
    await tabTo(page.getByLabel('Email'));
    await page.keyboard.type(author.email);
    await tabTo(page.getByLabel('Password'));
    await page.keyboard.type(author.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Channels' }).waitFor();

    await tabTo(sectionsNav(page).getByRole('link', { name: 'Posts' }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Posts' }).waitFor();
    await tabTo(page.getByRole('link', { name: 'New post' }));
    await page.keyboard.press('Enter');
    const text = page.getByLabel('Text');
    await tabTo(text);
    await page.keyboard.type('Typed without a mouse.');
    await expect(text.inputValue()).resolves.toBe('Typed without a mouse.');
    // The focus shows where it is (the outline of :focus-visible).
    await expect(
      page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle'),
    ).resolves.not.toBe('none');
    expectClean(watch);
    await page.close();
  });

  it('says how long a locked sign-in must wait', async () => {
    const { page, watch } = await openPage(browser, url());
    await page.setExtraHTTPHeaders({ 'x-forwarded-for': `10.${randomInt(256)}.${randomInt(256)}.7` });
    await page.goto(`${url()}/console/sign-in`);
    const wrong = { email: `nobody-${randomInt(1e9)}@example.com`, password: 'not the password at all' };
    for (let attempt = 1; attempt <= MAX_FAILURES; attempt += 1) {
      await signIn(page, wrong);
      await page.getByText('The email or the password is wrong.').waitFor();
    }
    await signIn(page, wrong);
    const alert = page.getByRole('alert');
    await alert.getByText('Too many failed sign-ins from this address.').waitFor();
    // ADMIN_LOGIN_LOCK_MINUTES is 15 by default; Retry-After says so, and the console in words.
    await alert.getByText(/^Try again in 15 minutes, at \d{2}:\d{2}\.$/).waitFor();
    await inspectPage(page, 'sign-in-locked');
    expectClean(watch);
    await page.close();
  });

  it('signs every tab out with "Sign out everywhere": another tab is signed out on its next action', async () => {
    const first = await openPage(browser, url());
    const second = await openPage(browser, url());
    for (const { page } of [first, second]) {
      await page.goto(`${url()}/console/sign-in`);
      await signIn(page, owner);
      await page.getByRole('heading', { name: 'Channels' }).waitFor();
    }
    await second.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await second.page.getByText('You are signed out.').waitFor();

    await sectionsNav(first.page).getByRole('link', { name: 'Posts' }).click();
    await first.page.getByText('Your session has ended. Sign in again.').waitFor();
    await expect(first.page.evaluate<number>('sessionStorage.length')).resolves.toBe(0);
    for (const { page, watch } of [first, second]) {
      expectClean(watch);
      await page.close();
    }
  });
});
