// The payment page (contract 12) in headless Chromium against the real server: what the payer
// sees, the QR as rendered (decoded), live state without a reload, the end screens, wallet
// messages for a rejected request, the wrong network and too little balance, the 404 page, the
// CSP, and that no request leaves for another origin. Screenshots go to .tmp/screenshots.
import type { Browser, HTTPRequest } from 'puppeteer-core';
import { createWalletClient, defineChain, erc20Abi, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserForFile, watchedPage } from '../support/browser';
import { DEV_KEYS, startAnvil, type Anvil } from '../support/evm/anvil';
import { injectWallet } from '../support/evm/page-wallet';
import { deployToken } from '../support/evm/token';
import { BASE_SEPOLIA, SOLANA_DEVNET, startTestServer, type ApiClient, type TestServer } from '../support/server';
import { readQr } from '../support/qr';

const browser = browserForFile();
let anvil: Anvil;
let usdc: Hex;
let s: TestServer;
let api: ApiClient;
const payer = privateKeyToAccount(DEV_KEYS[1]);
const requestor = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  anvil = await startAnvil('base');
  usdc = await deployToken(anvil, { [payer.address]: 1_000_000_000n });
  s = await startTestServer({
    networks: { [BASE_SEPOLIA]: { rpc: [anvil.url], pollIntervalMs: 100, tokens: { USDC: { address: usdc, decimals: 6 } } } },
  });
  const { key } = await s.account({ plan: 'pro', name: 'Acme Coffee' });
  api = s.api(key);
}, 120_000);

afterAll(async () => {
  await browser.close();
  await s?.stop();
  await anvil?.stop();
});

const anvilChain = (a: Anvil) =>
  defineChain({ id: a.chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [a.url] } } });

/** role: name of every node Chromium exposes, depth first. */
function flatten(n: { role: string; name?: string; children?: unknown[] } | null): string[] {
  if (!n) return [];
  return [`${n.role}: ${n.name ?? ''}`, ...(n.children ?? []).flatMap((c) => flatten(c as typeof n))];
}

/** Readable on a 390 px phone: nothing wider than the screen (no sideways scrolling). */
async function fitsThePhone(page: Awaited<ReturnType<typeof watchedPage>>['page']) {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  expect(width).toBe(390);
  expect(scroll).toBeLessThanOrEqual(width);
}

async function create(body: Record<string, unknown>) {
  const r = await api.post('/v1/intents', body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.intent as { id: string; payToken: string; payUrl: string; expiresAt: string };
}

/** Every request the page makes must stay on this server's origin. */
function sameOriginOnly(requests: HTTPRequest[], origin: string): void {
  const foreign = requests.map((r) => r.url()).filter((u) => !u.startsWith(origin) && !u.startsWith('data:'));
  expect(foreign).toEqual([]);
}

async function open(b: Browser, name: string, url: string, wallet?: (p: Awaited<ReturnType<typeof watchedPage>>['page']) => Promise<unknown>) {
  const w = await watchedPage(b, `pay-${name}`);
  const requests: HTTPRequest[] = [];
  w.page.on('request', (r) => void requests.push(r));
  await w.page.setViewport({ width: 390, height: 844 });
  const extra = wallet ? await wallet(w.page) : undefined;
  const res = await w.page.goto(url, { waitUntil: 'load' });
  return { ...w, res: res!, requests, extra };
}

describe('payment page, EVM', () => {
  it('shows merchant, amount, network and a QR that decodes to the EIP-681 URI; live paid screen without a reload', async () => {
    const b = await browser.get();
    const i = await create({ chain: BASE_SEPOLIA, token: 'USDC', amount: '12.34', requestor });
    expect(i.payUrl).toBe(`${s.url}/pay/${i.payToken}`);
    const p = await open(b, 'evm', i.payUrl);
    expect(p.res.status()).toBe(200);
    const csp = p.res.headers()['content-security-policy']!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'nonce-[^']+'(;|$)/);
    expect(csp).toContain("connect-src 'self'");
    const text = await p.page.$eval('main', (m) => m.textContent ?? '');
    expect(text).toContain('Pay Acme Coffee');
    expect(text).toContain('12.34 USDC');
    expect(text).toContain('Base Sepolia');
    await p.page.waitForFunction(() => /^\d+:\d\d$/.test(document.getElementById('countdown')!.textContent ?? ''));
    expect(await readQr(p.page, '#qr')).toBe(`ethereum:${usdc}@84532/transfer?address=${requestor}&uint256=12340000`);
    expect(await p.page.$eval('#qr', (a) => a.getAttribute('aria-label'))).toMatch(/QR code/);
    await p.shot('waiting');

    // The merchant's side moves it (test route): the page notices within its poll, no reload.
    const moved = await api.post(`/v1/test/intents/${i.id}/simulate`, { targetState: 'confirmed' });
    expect(moved.status).toBe(200);
    await p.page.waitForFunction(() => document.getElementById('end')?.getAttribute('data-end') === 'confirmed', { timeout: 5_000 });
    expect(await p.page.$eval('#end-title', (e) => e.textContent)).toBe('Paid');
    // The payer's receipt: what was paid, to whom, on which network, as rendered (innerText skips
    // what is hidden); nothing left to pay with, and the state in the payer's words.
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point (textContent includes hidden sections)
    const receipt = await p.page.$eval('main', (m) => (m as HTMLElement).innerText);
    expect(receipt).toContain('Acme Coffee');
    expect(receipt).toContain('12.34 USDC');
    expect(receipt).toContain('Base Sepolia');
    const shown = (sel: string) => p.page.$eval(sel, (e) => (e as HTMLElement).offsetParent !== null);
    expect(await shown('#qr')).toBe(false);
    expect(await shown('#wallets')).toBe(false);
    expect(await shown('#countdown')).toBe(false);
    expect(await p.page.$eval('#state', (e) => e.textContent)).toBe('Payment received: confirmed on chain'); // simulated: no transaction
    expect(await p.page.$eval('#merchant', (e) => e.textContent)).toBe('Paid to Acme Coffee');
    expect((await api.post(`/v1/test/intents/${i.id}/simulate`, { targetState: 'finalized' })).status).toBe(200);
    await p.page.waitForFunction(() => document.getElementById('state')?.getAttribute('data-state') === 'finalized', { timeout: 5_000 });
    expect(await p.page.$eval('#state', (e) => e.textContent)).toBe('Payment received: final on chain');
    // biome-ignore lint/performance/useDomNodeTextContent: as above, what is rendered
    expect(await p.page.$eval('main', (m) => (m as HTMLElement).innerText)).toContain('12.34 USDC');
    await fitsThePhone(p.page);
    await p.shot('paid');
    sameOriginOnly(p.requests, s.url);
    expect(p.problems).toEqual([]);
    await p.context.close();
  });

  it('while a payment is pending the QR and the wallet buttons are gone: a second click sends nothing', async () => {
    const b = await browser.get();
    const i = await create({ chain: BASE_SEPOLIA, token: 'USDC', amount: '2.5', requestor });
    // Not mined until the test says so: the intent stays pending, as on a slow network.
    await anvil.rpc('evm_setAutomine', [false]);
    try {
      const p = await open(b, 'evm-pending', i.payUrl, (page) => injectWallet(page, anvil, payer));
      const wallet = p.extra as Awaited<ReturnType<typeof injectWallet>>;
      await (await p.page.waitForSelector('#wallets button'))!.click();
      await p.page.waitForFunction(() => document.getElementById('state')?.getAttribute('data-state') === 'pending', { timeout: 20_000 });
      expect(wallet.sent).toHaveLength(1);
      // The payer clicks again (impatient, or the button reached in a stale tab): the wallet is asked for nothing.
      await p.page.$eval('#wallets button', (e) => (e as HTMLButtonElement).click());
      await new Promise((r) => setTimeout(r, 1_000));
      expect(wallet.calls.filter((m) => m === 'eth_sendTransaction')).toHaveLength(1);
      expect(wallet.sent).toHaveLength(1);
      // Nothing left to pay with: no QR to scan again, no button to click again.
      expect(await p.page.$eval('#pay', (e) => (e as HTMLElement).hidden)).toBe(true);
      await anvil.rpc('evm_mine', []);
      await p.page.waitForFunction(() => document.getElementById('end')?.getAttribute('data-end') === 'confirmed', { timeout: 20_000 });
      expect(p.problems).toEqual([]);
      await p.context.close();
    } finally {
      await anvil.rpc('evm_setAutomine', [true]);
    }
  });

  it('a click in a tab whose last poll is stale asks for the state first: a payment sent meanwhile from elsewhere is not sent again', async () => {
    const b = await browser.get();
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const i = await create({ chain: BASE_SEPOLIA, token: 'USDC', amount: '2.75', requestor: to });
    await anvil.rpc('evm_setAutomine', [false]);
    try {
      const p = await open(b, 'evm-stale', i.payUrl, (page) => injectWallet(page, anvil, payer));
      const wallet = p.extra as Awaited<ReturnType<typeof injectWallet>>;
      const button = await p.page.waitForSelector('#wallets button');
      // The tab's polls keep answering what it saw first (a tab in the background, a slow network):
      // the page believes the request is still waiting for a payment.
      const stale = await (await fetch(`${i.payUrl}/status`)).text();
      await p.page.setRequestInterception(true);
      p.page.on('request', (r) => {
        const u = new URL(r.url());
        if (u.pathname.endsWith('/status') && !u.searchParams.has('wallet')) void r.respond({ status: 200, contentType: 'application/json', body: stale });
        else void r.continue();
      });
      // The payer's phone pays it meanwhile (its wallet sends, then tells PayForge): pending.
      const phone = createWalletClient({ account: payer, chain: anvilChain(anvil), transport: http(anvil.url) });
      const hash = await phone.writeContract({ address: usdc, abi: erc20Abi, functionName: 'transfer', args: [to, 2_750_000n] });
      expect((await api.post(`/v1/intents/${i.id}/submit`, { txSignature: hash })).body.intent.state).toBe('pending');
      // Then the stale tab's button: the wallet is not asked to send a second payment.
      await button!.click();
      const message = () => p.page.$eval('#message', (e) => e.textContent ?? '');
      for (const end = Date.now() + 15_000; Date.now() < end; ) {
        if (wallet.calls.includes('eth_sendTransaction') || /on its way/.test(await message())) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(wallet.calls).not.toContain('eth_sendTransaction');
      expect(wallet.sent).toEqual([]);
      expect(await message()).toBe('This payment is already on its way or closed: nothing was sent from your wallet.');
      expect(await p.page.$eval('#state', (e) => e.getAttribute('data-state'))).toBe('pending');
      expect(await p.page.$eval('#pay', (e) => (e as HTMLElement).hidden)).toBe(true);
      await p.context.close();
    } finally {
      await anvil.rpc('evm_setAutomine', [true]);
      await anvil.rpc('evm_mine', []);
    }
  });

  it('a link holder never learns the address of the wallet attached to the payment', async () => {
    const b = await browser.get();
    const to = privateKeyToAccount(generatePrivateKey()).address;
    // The merchant named the customer's wallet; the link reached someone else (forwarded, shared).
    const attached = privateKeyToAccount(generatePrivateKey()).address;
    const i = await create({ chain: BASE_SEPOLIA, token: 'USDC', amount: '1.25', requestor: to, fulfiller: attached });
    const hidden = (text: string) => expect(text.toLowerCase()).not.toContain(attached.slice(2).toLowerCase());
    hidden(await (await fetch(i.payUrl)).text());
    hidden(await (await fetch(`${i.payUrl}/status`)).text());
    // A build for another wallet is refused without naming the attached one.
    const build = await fetch(`${i.payUrl}/build`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fulfiller: payer.address }) });
    expect(build.status).toBe(400);
    const refused = (await build.json()).error;
    hidden(JSON.stringify(refused));
    expect(refused).toMatchObject({ code: 'request.invalid_param', param: 'fulfiller', message: 'This payment was started from another wallet: pay from that wallet.' });
    // The page asks whether a wallet may pay, and hears yes or no.
    expect((await (await fetch(`${i.payUrl}/status?wallet=${payer.address}`)).json()).walletMayPay).toBe(false);
    expect((await (await fetch(`${i.payUrl}/status?wallet=${attached.toLowerCase()}`)).json()).walletMayPay).toBe(true);
    // Its wallet button: the payer is told before anything is sent.
    const p = await open(b, 'evm-other-wallet', i.payUrl, (page) => injectWallet(page, anvil, payer));
    await (await p.page.waitForSelector('#wallets button'))!.click();
    await p.page.waitForFunction(() => /another wallet/.test(document.getElementById('message')!.textContent ?? ''), { timeout: 10_000 });
    expect((p.extra as Awaited<ReturnType<typeof injectWallet>>).calls).not.toContain('eth_sendTransaction');
    hidden(await p.page.content());
    await p.context.close();
    // A transfer from another wallet, told through the link: refused, without naming the attached one.
    const other = createWalletClient({ account: payer, chain: anvilChain(anvil), transport: http(anvil.url) });
    const hash = await other.writeContract({ address: usdc, abi: erc20Abi, functionName: 'transfer', args: [to, 1_250_000n] });
    const sub = await fetch(`${i.payUrl}/submit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ txSignature: hash }) });
    expect(sub.status).toBe(422);
    const mismatch = (await sub.json()).error;
    expect(mismatch.code).toBe('transaction.mismatch');
    hidden(JSON.stringify(mismatch));
  });

  it('tells the payer what went wrong: rejected in the wallet, wrong network, too little balance', async () => {
    const b = await browser.get();
    const i = await create({ chain: BASE_SEPOLIA, token: 'USDC', amount: '5', requestor });
    const p = await open(b, 'evm-errors', i.payUrl, (page) => injectWallet(page, anvil, payer));
    const wallet = p.extra as Awaited<ReturnType<typeof injectWallet>>;
    const button = await p.page.waitForSelector('#wallets button');
    expect(await button!.evaluate((e) => e.textContent)).toBe('Pay with Test Wallet');
    // What a screen reader gets (Chromium's accessibility tree): the heading, the QR as a named
    // link, the wallet buttons in a named group, the live status and the alert for messages.
    const a11y = flatten(await p.page.accessibility.snapshot({ interestingOnly: false }));
    expect(a11y).toEqual(
      expect.arrayContaining([
        'heading: Pay Acme Coffee',
        'link: QR code to pay with a wallet app: scan it with your phone',
        'link: Open in a wallet app',
        'group: Wallets in this browser',
        'button: Pay with Test Wallet',
        'status: ',
        'StaticText: Waiting for payment…',
        'alert: ',
      ]),
    );
    const group = a11y.indexOf('group: Wallets in this browser');
    expect(a11y.indexOf('button: Pay with Test Wallet')).toBeGreaterThan(group);
    expect(await p.page.$eval('#message', (e) => e.getAttribute('role'))).toBe('alert');
    await fitsThePhone(p.page);
    const message = () => p.page.$eval('#message', (e) => e.textContent ?? '');

    wallet.behaviour.reject = true;
    await button!.click();
    await p.page.waitForFunction(() => /rejected/.test(document.getElementById('message')!.textContent ?? ''));
    expect(await message()).toBe('You rejected the request in your wallet; nothing was paid.');
    await p.shot('rejected');

    wallet.behaviour = { reject: false, chainId: 1, canSwitch: false };
    await button!.click();
    await p.page.waitForFunction(() => /Base Sepolia/.test(document.getElementById('message')!.textContent ?? ''));
    expect(await message()).toMatch(/Your wallet does not know Base Sepolia|switch your wallet to Base Sepolia/);

    expect(wallet.sent).toEqual([]);
    expect(wallet.calls).toContain('wallet_switchEthereumChain');
    sameOriginOnly(p.requests, s.url);
    await p.context.close();

    // A wallet with no USDC hears so before anything is sent.
    const broke = privateKeyToAccount(generatePrivateKey());
    const q = await open(b, 'evm-balance', i.payUrl, (page) => injectWallet(page, anvil, broke));
    await (await q.page.waitForSelector('#wallets button'))!.click();
    await q.page.waitForFunction(() => /Too little USDC/.test(document.getElementById('message')!.textContent ?? ''));
    expect(((q.extra as Awaited<ReturnType<typeof injectWallet>>).sent)).toEqual([]);
    await q.shot('low-balance');
    await q.context.close();
  });
});

describe('payment page, Solana and end screens', () => {
  it('the Solana QR is the Solana Pay transaction request of this page', async () => {
    const b = await browser.get();
    const i = await create({ chain: SOLANA_DEVNET, token: 'USDC', amount: '1.5', requestor: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin' });
    const p = await open(b, 'solana', i.payUrl);
    expect(await readQr(p.page, '#qr')).toBe(`solana:${encodeURIComponent(`${s.url}/pay/${i.payToken}/solana-pay`)}`);
    expect(await p.page.$eval('main', (m) => m.textContent ?? '')).toContain('Solana devnet');
    await p.context.close();
  });

  it('expired and cancelled intents show their end screen; an unknown or malformed token is a 404 page', async () => {
    const b = await browser.get();
    const a = await create({ chain: BASE_SEPOLIA, token: 'USDC', amount: '1', requestor });
    expect((await api.post(`/v1/test/intents/${a.id}/simulate`, { targetState: 'expired' })).status).toBe(200);
    const p = await open(b, 'expired', a.payUrl);
    await p.page.waitForSelector('#end[data-end="expired"]');
    expect(await p.page.$eval('#end-title', (e) => e.textContent)).toBe('Expired');
    await p.shot('expired');
    await p.context.close();

    const c = await create({ chain: BASE_SEPOLIA, token: 'USDC', amount: '1', requestor });
    expect((await api.post(`/v1/intents/${c.id}/cancel`)).status).toBe(200);
    const q = await open(b, 'cancelled', c.payUrl);
    await q.page.waitForSelector('#end[data-end="cancelled"]');
    await q.shot('cancelled');
    await q.context.close();

    for (const token of [`pt_${'A'.repeat(32)}`, 'nope', a.id]) {
      const r = await open(b, 'unknown', `${s.url}/pay/${token}`);
      expect(r.res.status()).toBe(404);
      expect(await r.page.$eval('h2', (e) => e.textContent)).toBe('Payment link not found');
      expect(await r.page.content()).not.toContain(a.id);
      await r.context.close();
    }
  });

  it('failed shows its end screen; money that arrives after the request expired turns the open page to "received late"', async () => {
    const b = await browser.get();
    const f = await create({ chain: BASE_SEPOLIA, token: 'USDC', amount: '1', requestor });
    expect((await api.post(`/v1/test/intents/${f.id}/simulate`, { targetState: 'failed' })).status).toBe(200);
    const p = await open(b, 'failed', f.payUrl);
    await p.page.waitForSelector('#end[data-end="failed"]');
    expect(await p.page.$eval('#end-title', (e) => e.textContent)).toBe('Payment failed');
    expect(await p.page.$eval('#pay', (e) => (e as HTMLElement).hidden)).toBe(true);
    await p.shot('failed');
    await p.context.close();

    // The page is open while the request expires, then the payer's wallet pays anyway.
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const late = await create({ chain: BASE_SEPOLIA, token: 'USDC', amount: '7', requestor: to });
    const q = await open(b, 'late', late.payUrl);
    await q.page.waitForSelector('#wallets');
    expect((await api.post(`/v1/test/intents/${late.id}/simulate`, { targetState: 'expired' })).status).toBe(200);
    await q.page.waitForSelector('#end[data-end="expired"]', { timeout: 10_000 });
    const wallet = createWalletClient({ account: payer, chain: anvilChain(anvil), transport: http(anvil.url) });
    const hash = await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: 'transfer', args: [to, 7_000_000n] });
    await q.page.waitForSelector('#end[data-end="late"]', { timeout: 20_000 });
    expect(await q.page.$eval('#end-title', (e) => e.textContent)).toBe('Payment received late');
    await q.shot('late');
    const i = (await api.get(`/v1/intents/${late.id}`)).body.intent;
    expect(i.state).toBe('expired');
    expect(i.latePayment.txSignature).toBe(hash);
    // The status says only that it happened: nothing of the merchant's ledger.
    const st = await (await fetch(`${s.url}/pay/${late.payToken}/status`)).json();
    expect(st).toEqual({ state: 'expired', expiresAt: late.expiresAt, txSignature: null, retryRequired: false, latePayment: true });
    expect(q.problems).toEqual([]);
    await q.context.close();
  });

  it('status answers {state, expiresAt, txSignature} for the token only, 404 envelope otherwise', async () => {
    const i = await create({ chain: BASE_SEPOLIA, token: 'USDC', amount: '3', requestor, metadata: { secret: 'internal' } });
    const r = await fetch(`${s.url}/pay/${i.payToken}/status`);
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body).toEqual({ state: 'created', expiresAt: i.expiresAt, txSignature: null, retryRequired: false, latePayment: false });
    // A parameter it does not know (a cache-buster) is ignored, as it always was.
    expect(await (await fetch(`${s.url}/pay/${i.payToken}/status?t=1`)).json()).toEqual(body);
    const bad = await fetch(`${s.url}/pay/pt_${'b'.repeat(32)}/status`);
    expect(bad.status).toBe(404);
    expect((await bad.json()).error.code).toBe('intent.not_found');
  });

  it('Solana Pay refusals carry CORS headers, so a browser wallet can read their message', async () => {
    const origin = { origin: 'https://wallet.example' };
    const unknown = `${s.url}/pay/pt_${'c'.repeat(32)}/solana-pay`;
    for (const r of [
      await fetch(unknown, { headers: origin }),
      await fetch(unknown, { method: 'POST', headers: { ...origin, 'content-type': 'application/json' }, body: JSON.stringify({ account: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin' }) }),
    ]) {
      expect(r.status).toBe(404);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect((await r.json()).error.code).toBe('intent.not_found');
    }
    const i = await create({ chain: SOLANA_DEVNET, token: 'USDC', amount: '1.5', requestor: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin' });
    const badBody = await fetch(`${s.url}/pay/${i.payToken}/solana-pay`, { method: 'POST', headers: { ...origin, 'content-type': 'application/json' }, body: '{}' });
    expect(badBody.status).toBe(400);
    expect(badBody.headers.get('access-control-allow-origin')).toBe('*');
    expect((await badBody.json()).error.param).toBe('account');
    // The wallet's `account` names the field at fault, not the verb's `fulfiller` it becomes.
    const notAnAddress = await fetch(`${s.url}/pay/${i.payToken}/solana-pay`, {
      method: 'POST', headers: { ...origin, 'content-type': 'application/json' }, body: JSON.stringify({ account: 'not-base58-0OIl' }),
    });
    expect(notAnAddress.status).toBe(400);
    expect(notAnAddress.headers.get('access-control-allow-origin')).toBe('*');
    expect((await notAnAddress.json()).error).toMatchObject({ code: 'request.invalid_param', param: 'account' });
  });
});

describe('payment page rate limit', () => {
  it('answers 429 with the envelope past the per-token burst', async () => {
    const t = await startTestServer({ rateLimit: { perSecond: 1, burst: 5 } });
    try {
      const { key } = await t.account();
      const r = await t.api(key).post('/v1/intents', { chain: BASE_SEPOLIA, token: 'USDC', amount: '1', requestor });
      const token = r.body.intent.payToken as string;
      const codes: number[] = [];
      for (let n = 0; n < 8; n++) codes.push((await fetch(`${t.url}/pay/${token}/status`)).status);
      expect(codes.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      expect(codes.at(-1)).toBe(429);
    } finally {
      await t.stop();
    }
  });
});
