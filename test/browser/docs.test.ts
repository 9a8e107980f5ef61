// /docs in real headless Chromium: Swagger UI comes from this server alone (every request the
// page makes goes to its own origin; the CSP allows nothing else), renders the OpenAPI document,
// and "Try it out" with an API key answers 200 from the same server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserForFile, watchedPage } from '../support/browser';
import { intentBody, startTestServer, type TestServer } from '../support/server';

let s: TestServer;
const browser = browserForFile();

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await browser.close();
  await s?.stop();
});

describe('/docs in Chromium', () => {
  it('serves its own assets with a same-origin-only CSP', async () => {
    const page = await fetch(`${s.url}/docs`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const html = await page.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    for (const [asset, type] of [
      ['swagger-ui.css', 'text/css'],
      ['swagger-ui-bundle.js', 'text/javascript'],
      ['init.js', 'text/javascript'],
    ] as const) {
      const r = await fetch(`${s.url}/docs/assets/${asset}`);
      expect(r.status, asset).toBe(200);
      expect(r.headers.get('content-type')).toContain(type);
      expect((await r.text()).length).toBeGreaterThan(100);
    }
    expect((await fetch(`${s.url}/docs/assets/constructor`)).status).toBe(404);
  });

  it('renders the document and "Try it out" gets an intent with an API key', { timeout: 120_000 }, async () => {
    const { key } = await s.account();
    const created = await s.api(key).post('/v1/intents', intentBody({ reference: 'docs-try-it' }));
    expect(created.status).toBe(201);
    const id = created.body.intent.id as string;

    const w = await watchedPage(await browser.get(), 'docs');
    const { page } = w;
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${s.url}/docs`);
    await page.waitForSelector('.swagger-ui .info .title', { timeout: 30_000 });
    expect(await page.$eval('.swagger-ui .info .title', (e) => e.textContent ?? '')).toContain('PayForge API');
    await w.shot('rendered');

    // Authorize with the API key (the bearer scheme).
    await page.click('.swagger-ui .auth-wrapper .authorize');
    await page.waitForSelector('.dialog-ux input[type=text], .dialog-ux input[type=password]');
    await page.type('.dialog-ux input[type=text], .dialog-ux input[type=password]', key);
    await page.click('.dialog-ux .auth-btn-wrapper button.authorize');
    await page.click('.dialog-ux .auth-btn-wrapper button.btn-done');

    // GET /v1/intents/{id}: open it, Try it out, fill the id, Execute.
    const op = await page.waitForSelector('xpath///div[contains(@class,"opblock-get")][.//*[contains(@class,"opblock-summary-path") and normalize-space(@data-path)="/v1/intents/{id}"]]');
    expect(op).not.toBeNull();
    await op!.$eval('.opblock-summary-control', (e) => (e as HTMLElement).click());
    const tryOut = await op!.waitForSelector('button.try-out__btn');
    await tryOut!.click();
    const idInput = await op!.waitForSelector('tr[data-param-name="id"] input');
    await idInput!.type(id);
    const execute = await op!.waitForSelector('button.execute');
    await execute!.click();
    const status = await op!.waitForSelector('.live-responses-table .response .response-col_status', { timeout: 30_000 });
    expect(await status!.evaluate((e) => e.textContent?.trim())).toBe('200');
    const body = await op!.$eval('.live-responses-table .response-col_description pre', (e) => e.textContent ?? '');
    expect(body).toContain(id);
    expect(body).toContain('docs-try-it');
    await w.shot('try-it-out');

    // Nothing came from anywhere but this server, and the CSP blocked nothing.
    expect(requested.filter((u) => !u.startsWith(`${s.url}/`) && !u.startsWith('data:'))).toEqual([]);
    expect(requested).toContain(`${s.url}/openapi.json`);
    expect(requested).toContain(`${s.url}/v1/intents/${id}`);
    expect(w.problems).toEqual([]);
    await w.context.close();
  });
});
