// Headless Chromium for the browser tests (puppeteer-core drives the system's browser; it never
// downloads one). `.ci/run` installs Debian's `chromium`; a machine without a browser FAILS the
// browser tests with a message saying how to install one: they are never skipped.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { REPO_ROOT } from './cli';

/** Where screenshots go (git-ignored, kept after the run as test artifacts). */
export const SCREENSHOT_DIR = join(REPO_ROOT, '.tmp', 'screenshots');

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** The browser executable: $CHROMIUM_PATH if set, else the first of the usual system paths. */
export function findChromium(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist.`);
    return fromEnv;
  }
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found) {
    throw new Error(
      `No Chromium found (looked at ${CANDIDATES.join(', ')}). The browser tests need one: ` +
        '`apt-get install -y --no-install-recommends chromium` (what .ci/run does), or set CHROMIUM_PATH.',
    );
  }
  return found;
}

export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: findChromium(),
    headless: true,
    // CI runs as root, where Chromium refuses to start with its sandbox.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

/**
 * One browser per test file, launched by the first test that asks, so a missing browser fails
 * each test (with findChromium's message) instead of a hook that would mark them skipped.
 */
export function browserForFile(): { get(): Promise<Browser>; close(): Promise<void> } {
  let launched: Promise<Browser> | undefined;
  return {
    get: () => (launched ??= launchBrowser()),
    async close() {
      const b = await launched?.catch(() => undefined);
      await b?.close();
    },
  };
}

export interface Watched {
  /** Its own context: cookies are not shared with other Watched pages. */
  context: BrowserContext;
  page: Page;
  /** Console errors and failed/blocked requests seen so far (CSP violations land here). */
  problems: string[];
  shot(name: string): Promise<void>;
}

/** A new page in a fresh context that records console errors, page errors and failed requests. */
export async function watchedPage(browser: Browser, prefix: string): Promise<Watched> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e instanceof Error ? e.message : String(e)}`));
  page.on('response', (r) => {
    // Navigations answer what the test expects; a failing sub-resource is a problem.
    if (r.status() >= 400 && !r.request().isNavigationRequest()) problems.push(`http ${r.status()}: ${r.url()}`);
  });
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    context,
    page,
    problems,
    shot: async (name) => {
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${prefix}-${name}.png`) as `${string}.png`, fullPage: true });
    },
  };
}
