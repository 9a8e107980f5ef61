// The dashboard's live view in real headless Chromium against the real server: the page opens
// its EventSource under the dashboard's CSP (no CDN, nonce'd inline script), and intents created
// and moved through the API show up on the drawing, in the counts and in the event list without
// a reload; another account's intents never do.
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/api';
import { browserForFile, watchedPage } from '../support/browser';
import { intentBody, startTestServer, type TestServer } from '../support/server';

const TOKEN = 'live-browser-admin-token-0123456789';

let s: TestServer;
const browser = browserForFile();

beforeAll(async () => {
  s = await startTestServer({ adminToken: TOKEN });
});
afterAll(async () => {
  await browser.close();
  await s?.stop();
});

const counts = (page: Page) =>
  page.$$eval('table.counts td[data-count]', (cells) => Object.fromEntries(cells.map((c) => [c.getAttribute('data-count'), Number(c.textContent)])));
const badges = (page: Page) =>
  page.$$eval('svg text[data-count-for]', (cells) => Object.fromEntries(cells.map((c) => [c.getAttribute('data-count-for'), Number(c.textContent)])));
const eventRows = (page: Page) =>
  page.$$eval('table.events tbody tr[data-seq]', (rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(1).map((td) => td.textContent?.trim() ?? '')));

describe('dashboard live view in Chromium', () => {
  it('moves with every committed transition, without a reload, and shows one account only', { timeout: 120_000 }, async () => {
    const a = await s.account({ name: 'Live shop' });
    const b = await s.account({ name: 'Other shop' });
    const api = s.api(a.key);
    const before = (await api.post('/v1/intents', intentBody({ reference: 'live-before' }))).body.intent.id as string;

    const w = await watchedPage(await browser.get(), 'live');
    const { page } = w;
    await page.goto(`${s.url}/dashboard`);
    await page.type('input[name=token]', TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('form[action="/dashboard/login"] button')]);

    // From the account page's link to its test-mode live view.
    await Promise.all([page.waitForNavigation(), page.click(`a[href="/dashboard/accounts/${a.accountId}"]`)]);
    await Promise.all([page.waitForNavigation(), page.click(`a[href="/dashboard/live?account=${a.accountId}&mode=test"]`)]);
    expect(await page.$eval('h1', (e) => e.textContent)).toBe('Live view');
    await page.waitForSelector('#live[data-status="live"]', { timeout: 10_000 });
    expect(await counts(page)).toMatchObject({ created: 1, confirmed: 0, finalized: 0, expired: 0 });
    expect(await page.$eval('table.intents', (t) => t.textContent)).toContain(before);
    // A marker on the window: gone if the page were reloaded or navigated.
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 42;
    });
    await w.shot('before');

    // The other account moves first: had its events leaked, they would be on the page before ours.
    const other = (await s.api(b.key).post('/v1/intents', intentBody({ reference: 'other-shop-order' }))).body.intent.id as string;
    expect((await s.api(b.key).post(`/v1/test/intents/${other}/simulate`, { targetState: 'confirmed' })).status).toBe(200);

    const fresh = (await api.post('/v1/intents', intentBody({ reference: 'live-fresh' }))).body.intent.id as string;
    expect((await api.post(`/v1/test/intents/${before}/simulate`, { targetState: 'confirmed' })).status).toBe(200);
    expect((await api.post(`/v1/test/intents/${before}/simulate`, { targetState: 'finalized' })).status).toBe(200);
    expect((await api.post(`/v1/test/intents/${fresh}/simulate`, { targetState: 'expired' })).status).toBe(200);

    await waitFor(async () => (await counts(page)).expired === 1, 15_000, 'the expired intent to be counted');
    expect(await counts(page)).toMatchObject({ created: 0, pending: 0, confirmed: 0, finalized: 1, expired: 1, failed: 0 });
    expect(await badges(page)).toMatchObject({ created: 0, confirmed: 0, finalized: 1, expired: 1 });
    // Newest first: each event with its intent and the transition it made.
    expect(await eventRows(page)).toEqual([
      ['intent.expired', fresh, 'created → expired'],
      ['intent.finalized', before, 'confirmed → finalized'],
      ['intent.confirmed', before, 'created → confirmed'],
      ['intent.created', fresh, 'start → created'],
      ['intent.created', before, 'start → created'],
    ]);
    // Each event says what it means on hover, for rows the server drew and rows the script added.
    expect(await page.$$eval('table.events tbody tr[data-seq] td:nth-child(2) code', (cs) => cs.map((c) => c.getAttribute('title')))).toEqual([
      'Its time ran out before a payment.',
      'The payment is final on chain.',
      'The payment has the configured confirmations; not final yet.',
      'The intent was created (a refund intent too); it waits for a payment.',
      'The intent was created (a refund intent too); it waits for a payment.',
    ]);
    // The intents table: the new one added, both in their current state.
    expect(await page.$eval(`table.intents tr[data-intent="${fresh}"]`, (r) => r.getAttribute('data-state'))).toBe('expired');
    expect(await page.$eval(`table.intents tr[data-intent="${before}"]`, (r) => r.getAttribute('data-state'))).toBe('finalized');
    // The drawing marks the last transition's arrow and the states that hold intents.
    expect(await page.$('svg path.edge.last[data-from="created"][data-to="expired"]')).not.toBeNull();
    expect(await page.$$eval('svg g.state-node.occupied', (gs) => gs.map((g) => g.getAttribute('data-state')).sort())).toEqual(['expired', 'finalized']);

    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    const text = await page.$eval('main', (m) => m.textContent ?? '');
    expect(text).not.toContain(other);
    expect(text).not.toContain('other-shop-order');
    await w.shot('after');

    // The other account's view has its own intent and none of this one's.
    await page.goto(`${s.url}/dashboard/live?account=${b.accountId}&mode=test`);
    await page.waitForSelector('#live[data-status="live"]', { timeout: 10_000 });
    expect(await counts(page)).toMatchObject({ confirmed: 1, created: 0, finalized: 0 });
    const otherText = await page.$eval('main', (m) => m.textContent ?? '');
    expect(otherText).toContain(other);
    expect(otherText).not.toContain(before);
    expect(otherText).not.toContain(fresh);

    // Nothing was blocked by the CSP (the EventSource needs connect-src 'self') and no script failed.
    expect(w.problems).toEqual([]);
    await w.context.close();
  });

  it("an intent's own page follows it: the lit state, the state field and the timeline move without a reload", { timeout: 120_000 }, async () => {
    const a = await s.account({ name: 'Intent page shop' });
    const api = s.api(a.key);
    const id = (await api.post('/v1/intents', intentBody({ reference: 'followed' }))).body.intent.id as string;
    const neighbour = (await api.post('/v1/intents', intentBody({ reference: 'neighbour' }))).body.intent.id as string;

    const w = await watchedPage(await browser.get(), 'intent-live');
    const { page } = w;
    await page.goto(`${s.url}/dashboard`);
    await page.type('input[name=token]', TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('form[action="/dashboard/login"] button')]);
    await page.goto(`${s.url}/dashboard/intents/${id}`);
    await page.waitForSelector('#intent-live[data-status="live"]', { timeout: 10_000 });
    expect(await page.$eval('svg g.state-node.current', (g) => g.getAttribute('data-state'))).toBe('created');
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 7;
    });

    // The neighbour moves first: its event must not reach this page.
    expect((await api.post(`/v1/test/intents/${neighbour}/simulate`, { targetState: 'failed' })).status).toBe(200);
    expect((await api.post(`/v1/test/intents/${id}/simulate`, { targetState: 'confirmed' })).status).toBe(200);
    await page.waitForSelector('svg g.state-node.current[data-state="confirmed"]', { timeout: 15_000 });
    expect(await page.$$eval('svg g.state-node.current', (gs) => gs.length)).toBe(1);
    // Lit exactly as the server lights it: compare with a fresh render of the same state.
    const look = (p: Page) =>
      p.$$eval('svg g.state-node, svg path.edge', (els) =>
        els.map((e) => {
          const r = e.tagName === 'g' ? e.querySelector('rect')! : e;
          return [e.getAttribute('data-state') ?? `${e.getAttribute('data-from')}>${e.getAttribute('data-to')}`, r.getAttribute('fill'), r.getAttribute('stroke'), r.getAttribute('stroke-width'), e.getAttribute('marker-end')];
        }),
      );
    const moved = await look(page);
    expect(await page.$eval('dd[data-field="state"]', (e) => e.textContent)).toBe('confirmed');
    expect(await page.$eval('b.current-state', (e) => e.textContent)).toBe('confirmed');
    expect(await page.$$eval('table.timeline tbody tr', (rows) => rows.map((r) => r.querySelectorAll('td')[1]!.textContent))).toEqual(['intent.created', 'intent.confirmed']);
    expect(await page.$$eval('table.timeline tbody code[title]', (cs) => cs.map((c) => c.getAttribute('title')))).toEqual([
      'The intent was created (a refund intent too); it waits for a payment.',
      'The payment has the configured confirmations; not final yet.',
    ]);
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(7);
    expect(await page.$eval('main', (m) => m.textContent ?? '')).not.toContain(neighbour);
    await w.shot('confirmed');

    await page.reload();
    expect(await look(page)).toEqual(moved);
    expect(w.problems).toEqual([]);
    await w.context.close();
  });

  it('fits a 390 px phone: the drawing and tables stay inside the window', { timeout: 60_000 }, async () => {
    const a = await s.account({ name: 'Narrow shop' });
    expect((await s.api(a.key).post('/v1/intents', intentBody({ reference: 'a-long-reference-for-a-narrow-screen-0123456789' }))).status).toBe(201);
    const w = await watchedPage(await browser.get(), 'live-narrow');
    await w.page.setViewport({ width: 390, height: 900 });
    await w.page.goto(`${s.url}/dashboard`);
    await w.page.type('input[name=token]', TOKEN);
    await Promise.all([w.page.waitForNavigation(), w.page.click('form[action="/dashboard/login"] button')]);
    await w.page.goto(`${s.url}/dashboard/live?account=${a.accountId}&mode=test`);
    await w.page.waitForSelector('#live[data-status="live"]', { timeout: 10_000 });
    const fit = await w.page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(fit.scroll).toBeLessThanOrEqual(fit.client);
    await w.shot('390');
    expect(w.problems).toEqual([]);
    await w.context.close();
  });
});
