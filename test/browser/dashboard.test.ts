// The dashboard in real headless Chromium against the real server on a port: the browser sends
// its own Origin, Sec-Fetch-* and Referer headers, follows redirects, keeps the cookie and runs
// the page's script (confirm dialogs). Every page and every form, at phone and desktop widths.
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/api';
import { readQr } from '../support/qr';
import { browserForFile, watchedPage, type Watched } from '../support/browser';
import { startReceiver, type Receiver } from '../support/receiver';
import { intentBody, startTestServer, type TestServer } from '../support/server';

const TOKEN = 'browser-admin-token-0123456789';

let s: TestServer;
let rx: Receiver;
const browser = browserForFile();

beforeAll(async () => {
  s = await startTestServer({ adminToken: TOKEN, webhooks: { retryScheduleSeconds: [1] } });
  rx = startReceiver();
});
afterAll(async () => {
  await browser.close();
  await s?.stop();
  await rx?.close();
});

/** Click something that submits a form or follows a link, and wait for the next page. */
async function go(page: Page, selector: string): Promise<number> {
  const [res] = await Promise.all([page.waitForNavigation(), page.click(selector)]);
  return res?.status() ?? 0;
}

const text = (page: Page, selector: string) => page.$eval(selector, (e) => e.textContent ?? '');

/** The page is no wider than the window: wide tables scroll inside their box. */
async function fitsWidth(page: Page): Promise<{ scroll: number; client: number }> {
  return page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
}

async function login(w: Watched): Promise<void> {
  await w.page.goto(`${s.url}/dashboard`);
  await w.page.type('input[name=token]', TOKEN);
  const status = await go(w.page, 'form[action="/dashboard/login"] button');
  expect(await text(w.page, 'main'), 'login refused').not.toContain('refused');
  expect(status).toBe(200);
  expect(await text(w.page, 'h1')).toBe('Accounts');
}

describe('dashboard in Chromium', () => {
  it('logs in, uses every page and form, and logs out', { timeout: 120_000 }, async () => {
    const { accountId, key } = await s.account({ plan: 'free', name: 'Browser shop' });
    const w = await watchedPage(await browser.get(), 'dashboard');
    const { page } = w;
    page.on('dialog', (d) => void d.accept()); // revoke and rotate ask first

    await login(w);
    await w.shot('accounts');
    expect(await text(w.page, 'main')).toContain('Browser shop');

    // Account page: create a key (shown once), it works on the API; revoke it, it stops.
    expect(await go(page, `a[href="/dashboard/accounts/${accountId}"]`)).toBe(200);
    await page.select('form[action$="/keys"] select[name=mode]', 'test');
    expect(await go(page, 'form[action$="/keys"] button')).toBe(200);
    const newKey = await text(page, 'code.new-key');
    expect(newKey).toMatch(/^pk_test_[0-9A-Za-z]{32}$/);
    expect((await s.api(newKey).get('/v1/intents')).status).toBe(200);
    await w.shot('key-created');
    const keyRow = await page.$$eval('tr[data-key]', (rows, last4) => rows.find((r) => r.textContent?.includes(`…${last4}`))?.getAttribute('data-key') ?? null, newKey.slice(-4));
    expect(keyRow).toMatch(/^key_/);
    expect(await go(page, `tr[data-key="${keyRow}"] form button`)).toBe(200);
    expect(await text(page, '.flash')).toContain('Key revoked');
    expect((await s.api(newKey).get('/v1/intents')).status).toBe(401);

    // Webhook endpoint (test mode): set the URL, reveal the secret, rotate it, reveal again.
    const card = '.card[data-mode="test"]';
    await page.type(`${card} input[name=url]`, rx.url('/browser'));
    expect(await go(page, `${card} form[action$="/webhooks/test"] button`)).toBe(200);
    expect(await text(page, '.flash')).toContain('Webhook endpoint saved');
    expect(await go(page, `${card} form[action$="/reveal"] button`)).toBe(200);
    const secret1 = await text(page, `${card} code.revealed-secret`);
    expect(secret1).toMatch(/^whsec_/);
    await w.shot('secret-revealed');
    expect(await go(page, `${card} form[action$="/rotate"] button`)).toBe(200);
    expect(await text(page, '.flash')).toContain('Secret rotated');
    expect(await go(page, `${card} form[action$="/reveal"] button`)).toBe(200);
    const secret2 = await text(page, `${card} code.revealed-secret`);
    expect(secret2).toMatch(/^whsec_/);
    expect(secret2).not.toBe(secret1);

    // An intent's event is delivered to the endpoint; the operator retries that delivery.
    const created = await s.api(key).post('/v1/intents', intentBody({ reference: 'browser-order-1' }));
    expect(created.status).toBe(201);
    const intentId = created.body.intent.id as string;
    await rx.waitFor(1, { prefix: '/browser' });
    expect(await go(page, 'header a[href="/dashboard/deliveries"]')).toBe(200);
    await page.select('select[name=status]', 'delivered');
    expect(await go(page, 'form[action="/dashboard/deliveries"] button')).toBe(200);
    expect(page.url()).toContain('status=delivered');
    expect(await text(page, 'main')).toContain(intentId);
    await w.shot('deliveries');
    expect(await go(page, 'form[action$="/retry"] button')).toBe(200);
    expect(await text(page, '.flash')).toContain('Retry queued');
    await rx.waitFor(2, { prefix: '/browser' });

    // Intents: filter by state and account, open one.
    expect(await go(page, 'header a[href="/dashboard/intents"]')).toBe(200);
    await page.select('select[name=state]', 'created');
    await page.select('select[name=account]', accountId);
    expect(await go(page, 'form[action="/dashboard/intents"] button')).toBe(200);
    expect(page.url()).toContain('state=created');
    expect(page.url()).toContain(`account=${accountId}`);
    expect(await text(page, 'main')).toContain('browser-order-1');
    await page.select('select[name=state]', 'finalized');
    expect(await go(page, 'form[action="/dashboard/intents"] button')).toBe(200);
    expect(await text(page, 'main')).toContain('No intents match');
    await page.select('select[name=state]', '');
    expect(await go(page, 'form[action="/dashboard/intents"] button')).toBe(200);
    expect(await go(page, `a[href="/dashboard/intents/${intentId}"]`)).toBe(200);
    expect(await text(page, 'h1')).toContain(intentId);
    expect(await text(page, 'table.timeline')).toContain('intent.created');
    expect(await page.$('svg [data-state="created"]')).not.toBeNull();
    // The pay link and its QR (as Chromium renders it) lead to the payment page.
    const payUrl = await page.$eval('.pay-link a', (a) => a.getAttribute('href'));
    expect(payUrl).toMatch(new RegExp(`^${s.url}/pay/pt_[0-9A-Za-z]{32}$`));
    expect(await readQr(page, '.pay-qr')).toBe(payUrl);
    await w.shot('intent');

    // Log out: the cookie is gone, so a page redirects to the login form.
    expect(await go(page, 'form[action="/dashboard/logout"] button')).toBe(200);
    expect(await page.$('input[name=token]')).not.toBeNull();
    await page.goto(`${s.url}/dashboard/intents`);
    expect(page.url()).toBe(`${s.url}/dashboard`);
    expect(await page.$('input[name=token]')).not.toBeNull();

    // Nothing was blocked by the CSP and no script failed.
    expect(w.problems).toEqual([]);
    await w.context.close();
  });

  it('fits a 390 px phone and a 1440 px desktop: wide tables scroll inside their box', { timeout: 120_000 }, async () => {
    const { accountId, key } = await s.account({ name: 'Layout shop' });
    await s.setEndpoint(accountId, 'test', rx.url('/layout'));
    const created = await s.api(key).post('/v1/intents', intentBody({ reference: 'a-rather-long-reference-for-the-layout-check-0123456789' }));
    expect(created.status).toBe(201);
    const intentId = created.body.intent.id as string;
    await rx.waitFor(1, { prefix: '/layout' });

    const w = await watchedPage(await browser.get(), 'layout');
    await login(w);
    const paths = ['/dashboard', `/dashboard/accounts/${accountId}`, '/dashboard/intents', `/dashboard/intents/${intentId}`, '/dashboard/deliveries', `/dashboard/live?account=${accountId}&mode=test`];
    for (const width of [390, 1440]) {
      await w.page.setViewport({ width, height: 900 });
      for (const path of paths) {
        await w.page.goto(`${s.url}${path}`);
        const fit = await fitsWidth(w.page);
        expect(fit.scroll, `${path} at ${width} px is ${fit.scroll} px wide`).toBeLessThanOrEqual(fit.client);
      }
      await w.shot(`deliveries-${width}`);
      await w.page.goto(`${s.url}/dashboard/intents`);
      await w.shot(`intents-${width}`);
    }
    expect(w.problems).toEqual([]);
    await w.context.close();
  });

  it('refuses a login form posted from another site', { timeout: 60_000 }, async () => {
    // A page on another origin (the receiver's port) auto-submits a form to the dashboard.
    const evil = startReceiver();
    evil.setHandler(() => ({
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: `<form id="f" method="post" action="${s.url}/dashboard/login"><input name="token" value="${TOKEN}"></form><script>document.getElementById('f').submit()</script>`,
    }));
    try {
      const w = await watchedPage(await browser.get(), 'cross-site');
      await Promise.all([w.page.waitForNavigation(), w.page.goto(evil.url('/attack'))]);
      await waitFor(async () => w.page.url().startsWith(s.url), 10_000, 'the cross-site post to land');
      expect(await text(w.page, 'main')).toContain('Cross-site login refused');
      const cookies = await w.context.cookies();
      expect(cookies.filter((c) => c.name === 'pf_dash' && c.value !== '')).toEqual([]);
      await w.context.close();
    } finally {
      await evil.close();
    }
  });
});
