// The dashboard's payments page through the real server: every payment with its status and
// reason, filtered by status, values escaped, only for a logged-in operator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids';
import { startTestServer, type TestServer } from '../support/server';

const TOKEN = 'dash-admin-token-payments-0123456789';
let s: TestServer;
let cookie: string;

const get = async (path: string, withCookie = true) => {
  const res = await fetch(`${s.url}${path}`, { redirect: 'manual', headers: withCookie ? { cookie } : {} });
  return { status: res.status, text: await res.text() };
};

beforeAll(async () => {
  s = await startTestServer({ adminToken: TOKEN });
  const { accountId } = await s.account();
  // Rows written through the real repository on the real schema, as recordFoundTransfer writes them.
  const repo = s.repos.payments;
  const base = {
    accountId, mode: 'test' as const, chain: 'eip155:84532', token: 'USDC', tokenAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    decimals: 6, from: '0x1111111111111111111111111111111111111111', to: '0x2222222222222222222222222222222222222222', detectedAt: Date.now(),
  };
  await repo.insert({ ...base, id: newId('pay'), amountBaseUnits: 1_500_000n, txSignature: '0xaaa', intentId: 'pi_under', status: 'unmatched', reason: 'amount_mismatch' });
  await repo.insert({ ...base, id: newId('pay'), amountBaseUnits: 2_000_000n, txSignature: '0xbbb', intentId: 'pi_late', status: 'late', reason: 'intent_closed' });
  await repo.insert({ ...base, id: newId('pay'), amountBaseUnits: 3_000_000n, txSignature: '0x<ccc>', intentId: null, status: 'unmatched', reason: 'ambiguous' });
  const res = await fetch(`${s.url}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.url },
    body: new URLSearchParams({ token: TOKEN }).toString(),
  });
  expect(res.status).toBe(303);
  cookie = res.headers.get('set-cookie')!.split(';')[0]!;
});
afterAll(async () => s.stop());

describe('dashboard payments', () => {
  it('lists every payment with its status and reason, newest first, escaped', async () => {
    const page = await get('/dashboard/payments');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/dashboard/payments"');
    const order = ['0x&lt;ccc&gt;', '0xbbb', '0xaaa'].map((t) => page.text.indexOf(t));
    expect(order.every((i) => i > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(page.text).not.toContain('0x<ccc>');
    for (const reason of ['amount_mismatch', 'intent_closed', 'ambiguous']) expect(page.text).toContain(`<b>${reason}</b>`);
    expect(page.text).toContain('1.5 USDC');
    expect(page.text).toContain('href="/dashboard/intents/pi_late"');
  });

  it('filters by status', async () => {
    const late = await get('/dashboard/payments?status=late');
    expect(late.text).toContain('0xbbb');
    expect(late.text).not.toContain('0xaaa');
    const bogus = await get('/dashboard/payments?status=%3Cx%3E');
    expect(bogus.status).toBe(200);
    expect(bogus.text).toContain('0xaaa');
  });

  it("lists every account's payments with the API's verb as the operator, paged by starting_after", async () => {
    const other = await s.account({ mode: 'live', name: 'Other shop' });
    const repo = s.repos.payments;
    const newer: string[] = [];
    for (let i = 0; i < 50; i++) {
      const id = newId('pay');
      newer.push(id);
      await repo.insert({
        id, accountId: other.accountId, mode: 'live', chain: 'eip155:8453', token: 'USDC', tokenAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6,
        from: '0x1111111111111111111111111111111111111111', to: '0x3333333333333333333333333333333333333333', detectedAt: Date.now(),
        amountBaseUnits: 1n, txSignature: `0xnew${i}`, intentId: null, status: 'unmatched', reason: 'no_open_intent',
      });
    }
    const first = await get('/dashboard/payments');
    const rows = (t: string) => [...t.matchAll(/data-payment="([^"]+)"/g)].map((m) => m[1]!);
    expect(rows(first.text)).toEqual([...newer].reverse());
    expect(first.text).toContain(`<code>${other.accountId}</code></a> live`);
    const older = /href="\/dashboard\/payments\?([^"]+)">Older/.exec(first.text)![1]!.replace(/&amp;/g, '&');
    expect(new URLSearchParams(older).get('starting_after')).toBe(newer[0]);
    const second = await get(`/dashboard/payments?${older}`);
    expect(second.text).toContain('0x&lt;ccc&gt;');
    expect(second.text).toContain('0xaaa');
    expect(rows(second.text)).toHaveLength(3);
    expect(second.text).not.toContain('Older');
  });

  it('is only for a logged-in operator', async () => {
    const anon = await get('/dashboard/payments', false);
    expect(anon.status).toBe(303);
  });
});
