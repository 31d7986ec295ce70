import type { Page } from 'playwright-core';
import type { TestAdmin } from './admin.ts';

// What every browser test of the console (test/console/) does the same way.

/** How long a condition may take to hold: as long as playwright's own waits. */
export const WAIT = { timeout: 30_000 };

/** The console's navigation of sections. */
export const sectionsNav = (page: Page) => page.getByRole('navigation', { name: 'Sections' });

/** Fills the sign-in form the page shows and sends it. */
export async function signIn(page: Page, admin: Pick<TestAdmin, 'email' | 'password'>): Promise<void> {
  await page.getByLabel('Email').fill(admin.email);
  await page.getByLabel('Password').fill(admin.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
