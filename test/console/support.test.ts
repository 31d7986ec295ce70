import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { adminCall, createTestAdmin, loginToken, type TestAdmin } from '../support/admin.ts';
import { useRunningApp } from '../support/app.ts';
import {
  type Browser,
  expectClean,
  inspectPage,
  launchBrowser,
  openPage,
  skipBrowser,
} from '../support/browser.ts';
import { sectionsNav, signIn, WAIT } from '../support/console.ts';
import { clientApi, requireSandbox } from '../support/chat.ts';
import { eventually } from '../support/eventually.ts';

// The Support pages in a real Chromium against the real service: users rate and complain through the
// client API (the Intercom sandbox closes their conversations), a support admin reads and resolves.
const used = useRunningApp();
const url = () => used.running.url;
const api = clientApi(url);
const sandbox = () => requireSandbox(used.running.support.sandbox);

/** A new complaint shows up on the queue's next poll, every 15 s without an `X-Poll-Interval`. */
const POLL_WAIT = { timeout: 40_000 };

/** `user` writes to support, the team closes the conversation, and the user rates it. */
async function rateClosedConversation(user: string, rating: number, comment?: string): Promise<void> {
  const sent = await api.post(user, '/conversations', { text: 'Where is my parcel?' });
  expect(sent.status).toBe(201);
  const { conversationId } = z.object({ conversationId: z.string() }).parse(sent.json);
  await sandbox().operator.close(conversationId);
  await eventually(
    async () => (await api.get(user, `/conversations/${conversationId}`)).json as { state: string },
    (conversation) => conversation.state === 'closed',
  );
  const rated = await api.post(user, '/csat', {
    targetType: 'conversation',
    targetId: conversationId,
    rating,
    ...(comment === undefined ? {} : { comment }),
  });
  expect(rated.status, JSON.stringify(rated.json)).toBe(201);
}

async function fileComplaint(user: string, reasonId: string, text: string): Promise<string> {
  const filed = await api.post(user, '/complaints', { reasonId, text });
  expect(filed.status, JSON.stringify(filed.json)).toBe(201);
  return z.object({ id: z.string() }).parse(filed.json).id;
}

const complaintOnServer = z.object({
  status: z.string(),
  note: z.string().optional(),
  resolvedBy: z.string().optional(),
});

describe.skipIf(skipBrowser)('the Support pages in Chromium', { timeout: 180_000 }, () => {
  let browser: Browser;
  let support: TestAdmin;
  let ownerToken: string;
  let reasonId: string;
  beforeAll(async () => {
    support = await createTestAdmin(used.db.pool, 'support');
    ownerToken = await loginToken(url(), await createTestAdmin(used.db.pool, 'owner'));
    const reason = await adminCall(url(), ownerToken, 'POST', '/admin/reasons', {
      kind: 'complaint',
      title: 'Rude operator',
    });
    expect(reason.status).toBe(201);
    reasonId = z.object({ id: z.string() }).parse(reason.body).id;
    await rateClosedConversation('ana', 5, 'Quick and kind.');
    await rateClosedConversation('ben', 4);
    await rateClosedConversation('cyd', 2, 'Took two days.');
    // The closes reach the analytics when their webhooks are processed: the page reads them once.
    await eventually(
      async () => (await adminCall(url(), ownerToken, 'GET', '/admin/analytics/conversations')).body,
      (report) => (report as { count: number }).count === 3,
    );
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('reads CSAT, sees a new complaint arrive, resolves it and sends a notice', async () => {
    const first = await fileComplaint('dana', reasonId, 'The operator laughed at my refund request.');
    const { page, watch } = await openPage(browser, url());
    await page.goto(`${url()}/console/sign-in`);
    await signIn(page, support);
    await page.getByRole('heading', { name: 'Channels' }).waitFor();
    for (const hidden of ['Admins', 'Reasons', 'Audit log', 'Reports']) {
      await expect(sectionsNav(page).getByRole('link', { name: hidden }).count()).resolves.toBe(0);
    }

    await sectionsNav(page).getByRole('link', { name: 'CSAT' }).click();
    await page.getByRole('heading', { name: 'CSAT' }).waitFor();
    // (5 + 4 + 2) / 3, in the admin's locale (en-GB).
    const average = page.locator('.figures div', { hasText: 'Average' });
    await average.getByText('3.67').waitFor(WAIT);
    await page.locator('.figures div', { hasText: 'Ratings' }).getByText('3', { exact: true }).waitFor();
    await page
      .getByRole('img', { name: /^Ratings by score: 1 star 0, 2 stars 1, 3 stars 0, 4 stars 1, 5 stars 1$/ })
      .waitFor();
    await page.getByRole('img', { name: /^Average rating by day: / }).waitFor();
    await page.getByText('Took two days.').waitFor();
    await inspectPage(page, 'csat');

    // A period the API refuses: its message next to the date it names.
    await page.getByLabel('Period').selectOption('chosen');
    await page.getByLabel('From').fill('2030-05-10');
    await page.getByLabel('To (included)').fill('2030-05-01');
    await expect.poll(() => page.getByLabel('From').getAttribute('aria-invalid'), WAIT).toBe('true');
    await page.getByText('must not be after to').waitFor();
    await page.getByLabel('Period').selectOption('7');
    await average.getByText('3.67').waitFor(WAIT);

    await sectionsNav(page).getByRole('link', { name: 'Analytics' }).click();
    await page.getByRole('heading', { name: 'Conversation analytics' }).waitFor();
    await page
      .locator('.figures div', { hasText: 'Conversations closed' })
      .getByText('3', { exact: true })
      .waitFor();
    await page.getByRole('img', { name: /^Conversations closed by day: / }).waitFor();
    await inspectPage(page, 'analytics');

    await sectionsNav(page).getByRole('link', { name: 'Complaints' }).click();
    await page.getByRole('heading', { name: 'Complaints' }).waitFor();
    await page.getByRole('link', { name: 'View the complaint “Rude operator” from dana' }).waitFor(WAIT);
    // Filed while the queue is open: the queue's poll brings it in, no reload.
    const second = await fileComplaint('eli', reasonId, 'Nobody answered for a week.');
    await page.getByRole('link', { name: 'View the complaint “Rude operator” from eli' }).waitFor(POLL_WAIT);
    await inspectPage(page, 'complaints');

    await page.getByRole('link', { name: 'View the complaint “Rude operator” from dana' }).click();
    await page.getByRole('heading', { name: 'Complaint: Rude operator' }).waitFor();
    await page.getByText('The operator laughed at my refund request.').waitFor();
    await page.getByLabel('Note for the team').fill('Apologised by email; refund sent.');
    await page.getByRole('button', { name: 'Resolve complaint' }).click();
    await page.getByText('Complaint resolved.').waitFor();
    await page.getByText('Apologised by email; refund sent.').waitFor();
    await expect(page.getByRole('button', { name: 'Resolve complaint' }).count()).resolves.toBe(0);
    const resolved = await adminCall(url(), ownerToken, 'GET', `/admin/complaints/${first}`);
    expect(complaintOnServer.parse(resolved.body)).toEqual({
      status: 'resolved',
      note: 'Apologised by email; refund sent.',
      resolvedBy: support.id,
    });
    const untouched = await adminCall(url(), ownerToken, 'GET', `/admin/complaints/${second}`);
    expect(complaintOnServer.parse(untouched.body).status).toBe('open');
    await inspectPage(page, 'complaint-resolved');

    await page.getByRole('link', { name: 'Back to the complaints' }).click();
    await page.getByRole('link', { name: /from eli$/ }).waitFor();
    // The list shows what it held until its read after the resolution lands: wait for that, not a moment.
    await expect.poll(() => page.getByRole('link', { name: /from dana$/ }).count(), WAIT).toBe(0);

    await sectionsNav(page).getByRole('link', { name: 'System notices' }).click();
    await page.getByText('No notice has been sent yet.').waitFor();
    await page.getByRole('link', { name: 'New notice' }).click();
    await page.getByLabel('Title').fill('Maintenance tonight');
    await page.getByLabel('Message').fill('The app is offline\nfrom 02:00 to 03:00 UTC.');
    // The preview shows what the service sends: line breaks folded into one space.
    const preview = page.getByRole('region', { name: 'Preview' });
    const folded = 'The app is offline from 02:00 to 03:00 UTC.';
    await expect(preview.locator('.push-title').textContent()).resolves.toBe('Maintenance tonight');
    await expect(preview.locator('.push-body').textContent()).resolves.toBe(folded);
    await expect(preview.locator('.chat-text').innerText()).resolves.toBe(`Maintenance tonight\n${folded}`);
    await page.getByLabel('Chosen users').check();
    await page.getByLabel('User ids').fill('ana, ben');
    await inspectPage(page, 'notice-new');
    await page.getByRole('button', { name: 'Send notice' }).click();
    await page.getByText('Notice sent.').waitFor();
    await page.getByRole('heading', { name: 'Maintenance tonight' }).waitFor();
    await page.getByText('2 users').waitFor();
    await inspectPage(page, 'notices');
    const notices = await adminCall(url(), ownerToken, 'GET', '/admin/notices');
    expect(notices.body).toMatchObject({
      items: [{ title: 'Maintenance tonight', userIds: ['ana', 'ben'], sentBy: support.id }],
    });

    expectClean(watch);
    await page.close();
  });
});
