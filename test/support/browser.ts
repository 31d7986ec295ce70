import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

// Debian's Chromium, driven by playwright-core: browser downloads are not possible here, so `.ci/run`
// installs the `chromium` package when it is missing (decision 044).

const CANDIDATES = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The Chromium to drive, or null when the machine has none. */
export const chromiumPath: string | null =
  CANDIDATES.find((path): path is string => path !== undefined && path !== '' && existsSync(path)) ?? null;

/**
 * Whether the browser suites skip: only with no Chromium and outside CI. Under CI=true they run, and a
 * missing Chromium fails them rather than hiding them.
 */
export const skipBrowser = chromiumPath === null && !process.env['CI'];
if (skipBrowser) {
  process.stderr.write(
    'test/console: no Chromium at /usr/bin/chromium (nor CHROMIUM_PATH): the browser tests are skipped. ' +
      'Install it with `apt-get install chromium`; under CI=true they run.\n',
  );
}

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where the suite writes its screenshots for a reviewer to look at (gitignored). */
export const SCREENSHOT_DIR = join(import.meta.dirname, '..', '..', 'test-results', 'console');

export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium with a fresh profile of its own, removed on close; pages in the admin's locale en-GB. */
export async function launchBrowser(): Promise<Browser> {
  if (chromiumPath === null) throw new Error('no Chromium: apt-get install chromium (or set CHROMIUM_PATH)');
  const profile = await mkdtemp(join(tmpdir(), 'console-chromium-'));
  // A persistent context is how playwright takes a --user-data-dir of our choosing.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: FLAGS,
    viewport: DESKTOP,
    locale: 'en-GB',
    timezoneId: 'Europe/London',
  });
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** What a page did that it must not: requests to another origin, CSP refusals, errors. */
export interface PageWatch {
  readonly offOrigin: string[];
  readonly refusals: string[];
  readonly errors: string[];
}

/** A new tab that records everything it asks of any origin but `origin`, and every CSP refusal. */
export async function openPage(browser: Browser, origin: string): Promise<{ page: Page; watch: PageWatch }> {
  const page = await browser.context.newPage();
  const watch: PageWatch = { offOrigin: [], refusals: [], errors: [] };
  page.on('request', (request) => {
    const url = request.url();
    if (url.startsWith('data:') || url.startsWith('blob:')) return;
    if (new URL(url).origin !== origin) watch.offOrigin.push(url);
  });
  page.on('console', (message) => {
    const text = message.text();
    if (text.includes('Content Security Policy')) watch.refusals.push(text);
    // A refused request is logged by Chromium itself ("Failed to load resource"): the tests cause some.
    else if (message.type() === 'error' && !text.startsWith('Failed to load resource'))
      watch.errors.push(text);
  });
  page.on('pageerror', (error) => {
    watch.errors.push(error.message);
  });
  return { page, watch };
}

/** Nothing left the origin, the CSP refused nothing, and nothing threw or logged an error. */
export function expectClean(watch: PageWatch): void {
  expect(watch.offOrigin).toEqual([]);
  expect(watch.refusals).toEqual([]);
  expect(watch.errors).toEqual([]);
}

interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: string[];
}

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

// Runs in the page. Evaluated through the DevTools protocol, which the page's CSP does not govern.
const RUN_AXE = `axe.run(document, { resultTypes: ['violations'] }).then((result) =>
  result.violations.map((v) => ({ id: v.id, impact: v.impact ?? null, help: v.help,
    targets: v.nodes.map((n) => n.target.join(' ')) })))`;

/** axe-core over the page as it stands: no serious or critical violation. */
export async function expectAccessible(page: Page): Promise<void> {
  await page.evaluate(await axeSource);
  const violations = await page.evaluate<Violation[]>(RUN_AXE);
  const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(grave).toEqual([]);
}

/** The page fits the viewport's width: no sideways scroll, the sign of a broken layout. */
async function expectNoOverflow(page: Page): Promise<void> {
  const overflow = await page.evaluate<number>(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  );
  expect(overflow).toBeLessThanOrEqual(0);
}

/**
 * Checks a page as a reviewer would and keeps a picture of it: accessible at both sizes, no sideways
 * scroll, a screenshot at 1280×800 and at 390×844 (`<name>-desktop.png`, `<name>-phone.png`).
 */
export async function inspectPage(page: Page, name: string): Promise<void> {
  for (const [label, size] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await expectAccessible(page);
    await expectNoOverflow(page);
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}
