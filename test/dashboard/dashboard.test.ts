// The operator dashboard through the real server: login, pages over real data, key and webhook
// actions, CSRF refusal and escaping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver';
import { intentBody, startTestServer, type TestServer } from '../support/server';

const TOKEN = 'dash-admin-token-0123456789';

interface Browser {
  cookie: string | null;
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; text: string; headers: Headers }>;
  post(path: string, form: Record<string, string>, headers?: Record<string, string>): Promise<{ status: number; text: string; headers: Headers }>;
  /** The CSRF token embedded in a logged-in page. */
  csrf(): Promise<string>;
}

function browser(url: string): Browser {
  const b: Browser = {
    cookie: null,
    async get(path, headers = {}) {
      const res = await fetch(`${url}${path}`, { redirect: 'manual', headers: { ...(b.cookie ? { cookie: b.cookie } : {}), ...headers } });
      return { status: res.status, text: await res.text(), headers: res.headers };
    },
    async post(path, form, headers = {}) {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: url,
          ...(b.cookie ? { cookie: b.cookie } : {}),
          ...headers,
        },
        body: new URLSearchParams(form).toString(),
      });
      return { status: res.status, text: await res.text(), headers: res.headers };
    },
    async csrf() {
      const page = await b.get('/dashboard');
      const m = /name="csrf" value="([^"]+)"/.exec(page.text);
      if (!m) throw new Error(`no csrf token on the page (status ${page.status})`);
      return m[1]!;
    },
  };
  return b;
}

async function login(url: string): Promise<Browser> {
  const b = browser(url);
  const res = await b.post('/dashboard/login', { token: TOKEN });
  expect(res.status).toBe(303);
  const set = res.headers.get('set-cookie')!;
  b.cookie = set.split(';')[0]!;
  return b;
}

describe('dashboard disabled without an admin token', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s.stop());

  it('answers 404 "disabled" on every page and action', async () => {
    const b = browser(s.url);
    for (const path of ['/dashboard', '/dashboard/intents', '/dashboard/deliveries']) {
      const r = await b.get(path);
      expect(r.status).toBe(404);
      expect(r.text).toBe('disabled: set PAYFORGE_ADMIN_TOKEN');
    }
    const r = await b.post('/dashboard/login', { token: '' });
    expect(r.status).toBe(404);
    expect(r.headers.get('set-cookie')).toBeNull();
  });
});

describe('dashboard', () => {
  let s: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    s = await startTestServer({ adminToken: TOKEN, webhooks: { retryScheduleSeconds: [1] } });
    rx = startReceiver();
  });
  afterAll(async () => {
    await s.stop();
    await rx.close();
  });

  it('shows the login form, refuses a wrong token and a forged cookie', async () => {
    const b = browser(s.url);
    const first = await b.get('/dashboard');
    expect(first.status).toBe(200);
    expect(first.text).toContain('name="token"');
    expect(first.text).not.toContain('Accounts</h1>');

    const wrong = await b.post('/dashboard/login', { token: 'not-the-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(wrong.text).toContain('Wrong admin token');

    b.cookie = 'pf_dash=9999999999999.abc.' + 'A'.repeat(43);
    const forged = await b.get('/dashboard/intents');
    expect(forged.status).toBe(303);
    expect(forged.headers.get('location')).toBe('/dashboard');

    // A cross-site login post is refused even with the right token.
    const cross = await browser(s.url).post('/dashboard/login', { token: TOKEN }, { origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
    expect(cross.headers.get('set-cookie')).toBeNull();
  });

  it('judges the origin as browsers send it: Sec-Fetch-Site first, then Origin', async () => {
    // Our own pages keep the Origin header meaningful (no-referrer made Chromium send "null").
    expect((await browser(s.url).get('/dashboard')).headers.get('referrer-policy')).toBe('same-origin');
    const attempt = (headers: Record<string, string>) => browser(s.url).post('/dashboard/login', { token: TOKEN }, headers);
    expect((await attempt({ 'sec-fetch-site': 'same-origin' })).status).toBe(303);
    expect((await attempt({ 'sec-fetch-site': 'same-origin', origin: 'null' })).status).toBe(303);
    expect((await attempt({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await attempt({ 'sec-fetch-site': 'same-site' })).status).toBe(403);
    // No Sec-Fetch-Site (an older browser): an opaque or foreign Origin is refused.
    expect((await attempt({ origin: 'null' })).status).toBe(403);
    expect((await attempt({ 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' })).status).toBe(403);
  });

  it('logs in with a signed HttpOnly SameSite=Strict cookie that does not hold the token', async () => {
    const { accountId } = await s.account({ plan: 'pro', name: 'Acme shop' });
    const b = browser(s.url);
    const res = await b.post('/dashboard/login', { token: TOKEN });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard');
    const set = res.headers.get('set-cookie')!;
    expect(set).toContain('HttpOnly');
    expect(set).toContain('SameSite=Strict');
    expect(set).not.toContain(TOKEN);
    b.cookie = set.split(';')[0]!;

    const home = await b.get('/dashboard');
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toContain('text/html');
    expect(home.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(home.text).toContain(accountId);
    expect(home.text).toContain('Acme shop');
    expect(home.text).toMatch(/<td>pro<\/td>/);

    // Logging out clears the cookie.
    const out = await b.post('/dashboard/logout', { csrf: await b.csrf() });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
  });

  it("lists intents with the API's verb as the operator: every account, narrowed by account and mode, paged by starting_after", async () => {
    const a = await s.account({ name: 'Paging A' });
    const b2 = await s.account({ name: 'Paging B', mode: 'live' });
    const made: string[] = [];
    // 52 of A's (one page of 50 and a second), then one of B's in live mode: newest first.
    for (let i = 0; i < 52; i++) made.push((await s.api(a.key).post('/v1/intents', intentBody({ reference: `page-${i}` }))).body.intent.id);
    const bLive = (await s.api(b2.key).post('/v1/intents', intentBody({ chain: 'eip155:8453' }))).body.intent.id as string;
    const ids = (html: string) => [...html.matchAll(/<a href="\/dashboard\/intents\/([^"]+)"><code>/g)].map((m) => m[1]!);

    const b = await login(s.url);
    const all = await b.get('/dashboard/intents');
    expect(ids(all.text)[0]).toBe(bLive);
    expect(all.text).toContain(`<td>live</td><td><a href="/dashboard/accounts/${b2.accountId}">`);

    const first = await b.get(`/dashboard/intents?account=${a.accountId}&mode=test`);
    expect(ids(first.text)).toEqual(made.slice(2).reverse());
    const older = /href="\/dashboard\/intents\?([^"]+)">Older/.exec(first.text)![1]!.replace(/&amp;/g, '&');
    expect(new URLSearchParams(older).get('starting_after')).toBe(made[2]);
    const second = await b.get(`/dashboard/intents?${older}`);
    expect(ids(second.text)).toEqual([made[1], made[0]]);
    expect(second.text).not.toContain('Older');

    expect(ids((await b.get(`/dashboard/intents?account=${b2.accountId}`)).text)).toEqual([bLive]);
    expect(ids((await b.get(`/dashboard/intents?account=${a.accountId}&mode=live`)).text)).toEqual([]);
    // A cursor outside the filter is refused as the API refuses it (400 invalid param), on a page.
    const foreign = await b.get(`/dashboard/intents?account=${a.accountId}&starting_after=${bLive}`);
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain(`No intent ${bLive} to start after.`);
  });

  it("the accounts page's intent counts stay right across creates and state changes (kept between loads, not recounted)", async () => {
    const one = await s.account({ name: 'Counted one' });
    const two = await s.account({ name: 'Counted two', mode: 'live' });
    const b = await login(s.url);
    const count = async (accountId: string) => {
      const page = await b.get('/dashboard');
      expect(page.status).toBe(200);
      const m = new RegExp(`<a href="/dashboard/accounts/${accountId}"><code>${accountId}</code></a></td><td>[^<]*</td><td>[^<]*</td><td>(\\d+)</td>`).exec(page.text);
      if (!m) throw new Error(`no row for ${accountId} on the accounts page`);
      return Number(m[1]);
    };
    expect(await count(one.accountId)).toBe(0);
    // (Two's key is a live one: a mainnet chain.)
    const create = async (key: string) => {
      const c = await s.api(key).post('/v1/intents', intentBody(key === two.key ? { chain: 'eip155:8453' } : {}));
      expect(c.status).toBe(201);
      return c.body.intent.id as string;
    };
    const first = await create(one.key);
    await create(one.key);
    await create(two.key);
    expect([await count(one.accountId), await count(two.accountId)]).toEqual([2, 1]);
    // A state change moves no intent in or out of its account's count.
    expect((await s.api(one.key).post(`/v1/intents/${first}/cancel`)).status).toBe(200);
    expect([await count(one.accountId), await count(two.accountId)]).toEqual([2, 1]);
    await create(two.key);
    await create(one.key);
    expect([await count(one.accountId), await count(two.accountId)]).toEqual([3, 2]);
  });

  it('lists an intent created through the API and shows its timeline and lifecycle drawing', async () => {
    const { key, accountId } = await s.account();
    const api = s.api(key);
    const c = await api.post('/v1/intents', intentBody({ reference: 'order-42' }));
    expect(c.status).toBe(201);
    const id = c.body.intent.id as string;
    expect((await api.post(`/v1/intents/${id}/cancel`)).status).toBe(200);

    const b = await login(s.url);
    const list = await b.get('/dashboard/intents');
    expect(list.status).toBe(200);
    expect(list.text).toContain(id);
    expect(list.text).toContain('order-42');
    expect(list.text).toContain('12.34 USDC');

    const byState = await b.get('/dashboard/intents?state=cancelled');
    expect(byState.text).toContain(id);
    const otherState = await b.get('/dashboard/intents?state=finalized');
    expect(otherState.text).not.toContain(id);
    const byAccount = await b.get(`/dashboard/intents?account=${accountId}`);
    expect(byAccount.text).toContain(id);

    const one = await b.get(`/dashboard/intents/${id}`);
    expect(one.status).toBe(200);
    const timeline = one.text.slice(one.text.indexOf('Event timeline'));
    expect(timeline).toContain('intent.created');
    expect(timeline).toContain('intent.cancelled');
    expect(timeline.indexOf('intent.created')).toBeLessThan(timeline.indexOf('intent.cancelled'));
    // The drawing has every state of the machine, the current one lit.
    expect(one.text).toContain('<svg');
    for (const st of ['created', 'pending', 'confirmed', 'finalized', 'failed', 'expired', 'cancelled', 'dropped']) {
      expect(one.text).toContain(`data-state="${st}"`);
    }
    expect(one.text).toContain('class="state-node current" data-state="cancelled"');
    expect(one.text.match(/state-node current/g)).toHaveLength(1);

    const missing = await b.get('/dashboard/intents/pi_doesnotexist');
    expect(missing.status).toBe(404);
  });

  it('creates a key (shown once) and revokes it; the revoked key answers 401 on the API', async () => {
    const { accountId } = await s.account();
    const b = await login(s.url);
    const csrf = await b.csrf();
    const created = await b.post(`/dashboard/accounts/${accountId}/keys`, { csrf, mode: 'test' });
    expect(created.status).toBe(200);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const key = /class="new-key">(pk_test_[0-9A-Za-z]{32})</.exec(created.text)![1]!;
    expect((await s.api(key).get('/v1/intents')).status).toBe(200);

    // The account page later shows only the last four characters.
    const page = await b.get(`/dashboard/accounts/${accountId}`);
    expect(page.text).not.toContain(key);
    expect(page.text).toContain(`…${key.slice(-4)}`);
    const keyId = new RegExp(`data-key="(key_[0-9A-Za-z]+)"`).exec(page.text)![1]!;

    const revoked = await b.post(`/dashboard/accounts/${accountId}/keys/${keyId}/revoke`, { csrf });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe(`/dashboard/accounts/${accountId}?done=revoked`);
    const r = await s.api(key).get('/v1/intents');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('auth.invalid_api_key');

    // A key of another account cannot be revoked through this account's page.
    const other = await s.account();
    const otherPage = await b.get(`/dashboard/accounts/${other.accountId}`);
    const otherKeyId = /data-key="(key_[0-9A-Za-z]+)"/.exec(otherPage.text)![1]!;
    expect((await b.post(`/dashboard/accounts/${accountId}/keys/${otherKeyId}/revoke`, { csrf })).status).toBe(404);
    expect((await s.api(other.key).get('/v1/intents')).status).toBe(200);
  });

  it('refuses POSTs without the session, without the CSRF token, or from another origin', async () => {
    const { accountId, key } = await s.account();
    const b = await login(s.url);
    const csrf = await b.csrf();
    const keysBefore = (await b.get(`/dashboard/accounts/${accountId}`)).text.match(/data-key=/g)!.length;

    const noCsrf = await b.post(`/dashboard/accounts/${accountId}/keys`, { mode: 'test' });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.text).not.toContain('pk_test_');
    const badCsrf = await b.post(`/dashboard/accounts/${accountId}/keys`, { mode: 'test', csrf: csrf.slice(0, -2) + 'xx' });
    expect(badCsrf.status).toBe(403);
    const crossSite = await b.post(`/dashboard/accounts/${accountId}/keys`, { mode: 'test', csrf }, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    const noSession = await browser(s.url).post(`/dashboard/accounts/${accountId}/keys`, { mode: 'test', csrf });
    expect(noSession.status).toBe(401);

    const keyId = /data-key="(key_[0-9A-Za-z]+)"/.exec((await b.get(`/dashboard/accounts/${accountId}`)).text)![1]!;
    expect((await b.post(`/dashboard/accounts/${accountId}/keys/${keyId}/revoke`, {})).status).toBe(403);
    expect((await s.api(key).get('/v1/intents')).status).toBe(200);

    const keysAfter = (await b.get(`/dashboard/accounts/${accountId}`)).text.match(/data-key=/g)!.length;
    expect(keysAfter).toBe(keysBefore);

    // Another session's CSRF token does not fit this session.
    const other = await login(s.url);
    const otherCsrf = await other.csrf();
    expect(otherCsrf).not.toBe(csrf);
    expect((await b.post(`/dashboard/accounts/${accountId}/keys`, { mode: 'test', csrf: otherCsrf })).status).toBe(403);
  });

  it('escapes an XSS payload in reference and metadata', async () => {
    const { key } = await s.account();
    const payload = '<script>alert("x")</script>';
    const img = '"><img src=x onerror=alert(1)>';
    const c = await s.api(key).post('/v1/intents', intentBody({ reference: payload, metadata: { note: img, [payload]: 'k' } }));
    expect(c.status).toBe(201);
    const id = c.body.intent.id as string;
    const b = await login(s.url);
    for (const path of ['/dashboard/intents', `/dashboard/intents/${id}`]) {
      const r = await b.get(path);
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(payload);
      expect(r.text).not.toContain('<img src=x');
      expect(r.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    }
    const one = await b.get(`/dashboard/intents/${id}`);
    expect(one.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // The page's only script is the dashboard's own, allowed by the CSP nonce.
    expect(one.text.match(/<script/g)).toHaveLength(1);
  });

  it('sets the webhook endpoint, reveals and rotates its secret, and retries a delivery', async () => {
    const { key, accountId } = await s.account({ plan: 'free' });
    const b = await login(s.url);
    const csrf = await b.csrf();

    const set = await b.post(`/dashboard/accounts/${accountId}/webhooks/test`, { csrf, url: rx.url('/dash') });
    expect(set.status).toBe(303);
    const page = await b.get(`/dashboard/accounts/${accountId}?done=endpoint`);
    expect(page.text).toContain(rx.url('/dash'));
    expect(page.text).toContain('Webhook endpoint saved');
    expect(page.text).not.toContain('whsec_');

    const bad = await b.post(`/dashboard/accounts/${accountId}/webhooks/live`, { csrf, url: 'http://127.0.0.1/x' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('class="error"');

    const reveal1 = await b.post(`/dashboard/accounts/${accountId}/webhooks/test/reveal`, { csrf });
    expect(reveal1.status).toBe(200);
    const secret1 = /class="revealed-secret">(whsec_[^<]+)</.exec(reveal1.text)![1]!;
    expect((await b.post(`/dashboard/accounts/${accountId}/webhooks/test/rotate`, { csrf })).status).toBe(303);
    const reveal2 = await b.post(`/dashboard/accounts/${accountId}/webhooks/test/reveal`, { csrf });
    const secret2 = /class="revealed-secret">(whsec_[^<]+)</.exec(reveal2.text)![1]!;
    expect(secret2).not.toBe(secret1);
    expect(reveal2.text).toContain('previous secret keeps signing');

    // An intent's event is delivered; the operator replays it (even on the free plan).
    const c = await s.api(key).post('/v1/intents', intentBody());
    expect(c.status).toBe(201);
    await rx.waitFor(1, { prefix: '/dash' });
    const list = await b.get(`/dashboard/deliveries?account=${accountId}`);
    expect(list.status).toBe(200);
    expect(list.text).toContain(c.body.intent.id);
    const deliveryId = /action="\/dashboard\/deliveries\/(whd_[0-9A-Za-z]+)\/retry"/.exec(list.text)![1]!;
    const retried = await b.post(`/dashboard/deliveries/${deliveryId}/retry`, { csrf });
    expect(retried.status).toBe(303);
    expect(retried.headers.get('location')).toBe('/dashboard/deliveries?done=retried');
    await rx.waitFor(2, { prefix: '/dash' });
    const after = await b.get(`/dashboard/deliveries?account=${accountId}`);
    expect(after.text.match(/\/retry"/g)).toHaveLength(2);
    expect((await b.post('/dashboard/deliveries/whd_nope/retry', { csrf })).status).toBe(404);
  });
});
