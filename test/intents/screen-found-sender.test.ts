// A transfer found on chain has its sender screened as a submit's signer is (contract 6), on a
// real core over either store with the real migrations and a real HTTP screening provider: a sanctioned
// sender's transfer moves no intent and is kept in view as an unmatched payment (reason
// sanctions_match, naming the intent it would have paid, payment.unmatched emitted); while the
// provider is unreachable nothing is written and the same report succeeds once it answers; a
// transaction whose signer was screened at submit is not screened again.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FoundTransfer } from '../../src/chains/types';
import { createCore, type Core } from '../../src/compose';
import { freshTestDatabase, type TestDatabase } from '../support/test-store';
import { validate } from '../../src/config';
import { DEFAULT_CONFIG } from '../../src/config.types';
import { recordFoundTransfer } from '../../src/intents/record-found-transfer';

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const REQUESTOR = '0x1111111111111111111111111111111111111111';
const LISTED = '0x3333333333333333333333333333333333333333'; // in config extraAddresses
const FLAGGED = '0x4444444444444444444444444444444444444444'; // the remote provider's match
const CLEAN = '0x5555555555555555555555555555555555555555';

let provider: ReturnType<typeof Bun.serve>;
let providerDown = false;
let fresh: TestDatabase;
let core: Core;
let key: string;

beforeAll(() => {
  provider = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      if (providerDown) return new Response('maintenance', { status: 503 });
      const who = decodeURIComponent(new URL(req.url).pathname.split('/').pop()!).toLowerCase();
      return Response.json({ identifications: who === FLAGGED.toLowerCase() ? [{ category: 'sanctions' }] : [] });
    },
  });
});
afterAll(async () => void (await provider.stop(true)));

beforeEach(async () => {
  providerDown = false;
  fresh = await freshTestDatabase();
  core = await createCore(
    validate({
      ...structuredClone(DEFAULT_CONFIG),
      db: fresh.db,
      logLevel: 'error',
      screening: { extraAddresses: [LISTED], extraAddressesFile: null, listDir: null, provider: { url: `http://127.0.0.1:${provider.port}`, apiKey: 'k', timeoutMs: 2000 } },
    }),
  );
  const acct = await core.store.repos.accounts.create({ name: 'm', plan: 'pro' });
  key = (await core.store.repos.apiKeys.create({ accountId: acct.id, mode: 'test' })).key;
});
afterEach(async () => {
  await core.stop();
  fresh.dispose();
});

const call = async (method: string, path: string, body?: unknown) => {
  const res = await core.app.handle(
    new Request(`http://local${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }),
  );
  return { status: res.status, body: (await res.json()) as any };
};

let n = 0;
const transfer = (from: string, over: Partial<FoundTransfer> = {}): FoundTransfer => ({
  chain: 'eip155:84532',
  txSignature: `0x${(++n).toString(16).padStart(64, '0')}`,
  tokenAddress: USDC.toLowerCase(),
  from: from.toLowerCase(),
  to: REQUESTOR.toLowerCase(),
  amountBaseUnits: 3_000_000n,
  references: [],
  landedAt: Date.now(),
  commitment: 'confirmed',
  watchData: { from, nonce: 0, sinceBlock: 1 },
  ...over,
});

const createIntent = async () => {
  const r = await call('POST', '/v1/intents', { chain: 'eip155:84532', token: 'USDC', amount: '3', requestor: REQUESTOR });
  expect(r.status).toBe(201);
  return r.body.intent as { id: string };
};
const payments = async () => (await call('GET', '/v1/payments?limit=100')).body.payments as any[];

describe('screening the sender of a transfer found on chain', () => {
  for (const [source, sender] of [['the built-in/extra list', LISTED], ['the remote provider', FLAGGED]] as const) {
    it(`a sender matched by ${source} pays nothing: unmatched sanctions_match naming the intent, payment.unmatched, intent untouched`, async () => {
      const intent = await createIntent();
      const ft = transfer(sender);
      const r = await recordFoundTransfer(core.services, ft);
      expect(r.outcome).toBe('recorded');
      expect(r.payment).toMatchObject({ status: 'unmatched', reason: 'sanctions_match', intentId: intent.id, txSignature: ft.txSignature });
      const now = (await call('GET', `/v1/intents/${intent.id}`)).body.intent;
      expect(now).toMatchObject({ state: 'created', txSignature: null, fulfiller: null });
      // Re-reported at finalized: still one record, nothing moves.
      const again = await recordFoundTransfer(core.services, { ...ft, commitment: 'finalized' });
      expect(again.outcome).toBe('known');
      expect((await payments()).filter((p) => p.txSignature === ft.txSignature)).toHaveLength(1);
      expect((await call('GET', `/v1/intents/${intent.id}`)).body.intent.state).toBe('created');
      const all = (await call('GET', '/v1/events?limit=100')).body.events as Array<{ type: string; data: { payment?: { txSignature: string; reason: string } } }>;
      const unmatched = all.filter((e) => e.type === 'payment.unmatched' && e.data.payment?.txSignature === ft.txSignature);
      expect(unmatched.map((e) => e.data.payment!.reason)).toEqual(['sanctions_match']);
      expect(all.filter((e) => e.type !== 'payment.unmatched').map((e) => e.type)).toEqual(['intent.created']);
    });
  }

  it('while the provider is unreachable nothing is written; the next report (the detector retries) pays the intent', async () => {
    const intent = await createIntent();
    const ft = transfer(CLEAN);
    providerDown = true;
    await expect(recordFoundTransfer(core.services, ft)).rejects.toMatchObject({ code: 'screening.unavailable' });
    expect(await payments()).toEqual([]);
    expect((await call('GET', `/v1/intents/${intent.id}`)).body.intent.state).toBe('created');
    providerDown = false;
    const r = await recordFoundTransfer(core.services, ft);
    expect(r.payment).toMatchObject({ status: 'matched', reason: null, intentId: intent.id });
    expect((await call('GET', `/v1/intents/${intent.id}`)).body.intent).toMatchObject({ state: 'confirmed', txSignature: ft.txSignature, fulfiller: CLEAN });
  });

  it("a transaction already recorded for an intent (its signer screened at submit) is not refused later: the intent's own payment", async () => {
    const intent = await createIntent();
    const ft = transfer(LISTED);
    // As if submit had recorded it before the address was listed: the intent is pending with it.
    await core.runtime.write(async (w) => w.apply((await w.get(intent.id))!, { type: 'SUBMIT', at: w.now, txSignature: ft.txSignature }, 'throw', { fulfiller: LISTED }));
    const r = await recordFoundTransfer(core.services, ft);
    expect(r.payment).toMatchObject({ status: 'matched', intentId: intent.id });
    expect((await call('GET', `/v1/intents/${intent.id}`)).body.intent.state).toBe('confirmed');
  });
});
