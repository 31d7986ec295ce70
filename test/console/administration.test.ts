import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  adminCall,
  createTestAdmin,
  goodPassword,
  loginToken,
  postLogin,
  type TestAdmin,
  uniqueEmail,
} from '../support/admin.ts';
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

// The Administration pages in a real Chromium against the real service: an owner manages admins, reasons
// and reads the audit log, while another admin's console is open in a browser of its own.
const used = useRunningApp();
const url = () => used.running.url;

const adminOnServer = z.object({ id: z.string(), name: z.string(), role: z.string(), active: z.boolean() });

async function adminsOnServer(token: string): Promise<z.infer<typeof adminOnServer>[]> {
  const answer = await adminCall(url(), token, 'GET', '/admin/admins?limit=100');
  expect(answer.status).toBe(200);
  return z.object({ items: z.array(adminOnServer) }).parse(answer.body).items;
}

describe.skipIf(skipBrowser)('the Administration pages in Chromium', { timeout: 240_000 }, () => {
  let browser: Browser;
  let other: Browser;
  let owner: TestAdmin;
  let colleague: TestAdmin;
  beforeAll(async () => {
    owner = await createTestAdmin(used.db.pool, 'owner');
    colleague = await createTestAdmin(used.db.pool, 'support', 'colleague');
    browser = await launchBrowser();
    // The colleague's console runs in a browser of its own: nothing of the owner's session is shared.
    other = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
    await other.close();
  });

  it('deactivates an admin, whose open console is signed out on its next action; then manages the rest', async () => {
    const mine = await openPage(browser, url());
    const theirs = await openPage(other, url());
    await theirs.page.goto(`${url()}/console/sign-in`);
    await signIn(theirs.page, colleague);
    await theirs.page.getByRole('heading', { name: 'Channels', exact: true }).waitFor();
    await sectionsNav(theirs.page).getByRole('link', { name: 'CSAT' }).click();
    await theirs.page.getByRole('heading', { name: 'CSAT', exact: true }).waitFor();

    const { page } = mine;
    await page.goto(`${url()}/console/sign-in`);
    await signIn(page, owner);
    await page.getByRole('heading', { name: 'Channels', exact: true }).waitFor();
    await sectionsNav(page).getByRole('link', { name: 'Admins' }).click();
    await page.getByRole('heading', { name: 'Admins', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'colleague admin', exact: true }).waitFor();
    await inspectPage(page, 'admins');

    // A new admin: the password policy's refusal next to the password, then the account.
    await page.getByRole('link', { name: 'New admin' }).click();
    await page.getByRole('heading', { name: 'New admin', exact: true }).waitFor();
    const email = uniqueEmail('newcomer');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Name').fill('Nora Newcomer');
    await page.getByLabel('Role').selectOption('auditor');
    const password = page.getByLabel('Password');
    await password.fill('too short');
    await page.getByRole('button', { name: 'Create admin' }).click();
    await expect.poll(() => password.getAttribute('aria-invalid'), WAIT).toBe('true');
    await page.getByText('must be at least 15 characters').waitFor();
    await page.getByText('The password is not acceptable. See the messages next to the fields.').waitFor();
    await expect(page.getByLabel('Email').getAttribute('aria-invalid')).resolves.toBeNull();
    await inspectPage(page, 'admin-new-errors');
    expect((await adminsOnServer(await loginToken(url(), owner))).map((a) => a.name)).not.toContain(
      'Nora Newcomer',
    );
    const noraPassword = goodPassword();
    await password.fill(noraPassword);
    await page.getByRole('button', { name: 'Create admin' }).click();
    await page.getByText('Admin Nora Newcomer created.').waitFor();
    await page.getByRole('heading', { name: 'Nora Newcomer', exact: true }).waitFor();
    expect((await postLogin(url(), { email, password: noraPassword })).status).toBe(200);

    // Deactivate the colleague, whose console is open in the other browser.
    await page.getByRole('link', { name: 'Manage colleague admin' }).click();
    await page.getByRole('heading', { name: 'colleague admin', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Deactivate', exact: true }).click();
    await page.getByRole('button', { name: 'Yes, deactivate' }).click();
    await page.getByText('Account deactivated.').waitFor();
    await page.getByText('The account is deactivated: it cannot sign in.').waitFor();
    await inspectPage(page, 'admin-edit');
    const token = await loginToken(url(), owner);
    expect((await adminsOnServer(token)).find((a) => a.id === colleague.id)?.active).toBe(false);

    await sectionsNav(theirs.page).getByRole('link', { name: 'Complaints' }).click();
    await expect.poll(() => theirs.page.url(), WAIT).toBe(`${url()}/console/sign-in`);
    await theirs.page.getByText('Your session has ended. Sign in again.').waitFor();
    await signIn(theirs.page, colleague);
    await theirs.page.getByText('The email or the password is wrong.').waitFor();

    // Activate again, with a new role and a new password.
    await page.getByRole('button', { name: 'Activate', exact: true }).click();
    await page.getByText('Account activated.').waitFor();
    await page.getByLabel('Role', { exact: true }).selectOption('moderator');
    await page.getByRole('button', { name: 'Save name and role' }).click();
    await page.getByText('Saved.').waitFor();
    const newPassword = page.getByLabel('New password');
    await newPassword.fill('short');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => newPassword.getAttribute('aria-invalid'), WAIT).toBe('true');
    const fresh = goodPassword();
    await newPassword.fill(fresh);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Password set.').waitFor();
    expect((await adminsOnServer(token)).find((a) => a.id === colleague.id)).toMatchObject({
      active: true,
      role: 'moderator',
    });
    expect((await postLogin(url(), { email: colleague.email, password: fresh })).status).toBe(200);

    // Reasons: a refused title next to its field, a new reason, retired from the list.
    await sectionsNav(page).getByRole('link', { name: 'Reasons' }).click();
    await page.getByRole('heading', { name: 'Reasons', exact: true }).waitFor();
    await page.getByLabel('Kind').selectOption('complaint');
    await page.getByRole('button', { name: 'Add reason' }).click();
    const title = page.getByLabel('Title');
    await expect.poll(() => title.getAttribute('aria-invalid'), WAIT).toBe('true');
    await title.fill('Rude operator');
    await page.getByRole('button', { name: 'Add reason' }).click();
    await page.getByText('Reason “Rude operator” added.').waitFor();
    const complaints = page.getByRole('region', { name: 'Complaint reasons' });
    await complaints.getByText('Rude operator').waitFor();
    await complaints.getByRole('button', { name: 'Retire “Rude operator”' }).click();
    await complaints.getByText('retired').waitFor();
    await inspectPage(page, 'reasons');
    const reasons = await adminCall(url(), token, 'GET', '/admin/reasons');
    expect(reasons.body).toMatchObject({
      items: [{ kind: 'complaint', title: 'Rude operator', active: false }],
    });

    await complaints.getByRole('link', { name: 'Edit “Rude operator”' }).click();
    await page.getByRole('heading', { name: 'Edit “Rude operator”', exact: true }).waitFor();
    await page.getByLabel('Title').fill('Rude or dismissive operator');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    await inspectPage(page, 'reason-edit');

    // The audit log: everything above, then only the deactivation.
    await sectionsNav(page).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log', exact: true }).waitFor();
    await page.getByText('admins.create', { exact: true }).first().waitFor();
    await inspectPage(page, 'audit-log');
    await page.getByLabel('Action').fill('admins.deactivate');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('action'), WAIT).toBe('admins.deactivate');
    await expect.poll(() => page.locator('.audit-entries > li').count(), WAIT).toBe(1);
    await page.getByText('admins.deactivate', { exact: true }).waitFor();
    await page.getByLabel('From').fill('2030-05-10');
    await page.getByLabel('To (included)').fill('2030-05-01');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('from must not be after to').waitFor();
    await expect(page.getByLabel('From').getAttribute('aria-invalid')).resolves.toBe('true');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByText('auth.login', { exact: true }).first().waitFor();

    await sectionsNav(page).getByRole('link', { name: 'System notices' }).click();
    await page.getByText('No notice has been sent yet.').waitFor();
    await inspectPage(page, 'notices-empty');

    for (const { page: tab, watch } of [mine, theirs]) {
      expectClean(watch);
      await tab.close();
    }
  });
});
