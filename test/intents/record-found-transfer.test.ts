// The matcher (contract 11) on a real core over a fresh database (either store) with the real migrations:
// a transfer found for an intent the watcher already finalized is its `matched` record (never a
// duplicate), the same transfer reported by two scans at once makes one record and one set of
// events, and a transfer of an unconfigured token or to an unknown receiver is ignored.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FoundTransfer } from '../../src/chains/types';
import type { Core } from '../../src/compose';
import { coreWithKey } from '../support/core';
import { recordFoundTransfer } from '../../src/intents/record-found-transfer';

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const REQUESTOR = '0x1111111111111111111111111111111111111111';
const PAYER = '0x2222222222222222222222222222222222222222';
let stop: () => Promise<void>;
let core: Core;
let key: string;

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

const transfer = (over: Partial<FoundTransfer> = {}): FoundTransfer => ({
  chain: 'eip155:84532',
  txSignature: `0x${'ab'.repeat(32)}`,
  tokenAddress: USDC.toLowerCase(),
  from: PAYER.toLowerCase(),
  to: REQUESTOR.toLowerCase(),
  amountBaseUnits: 3_000_000n,
  references: [],
  landedAt: Date.now(),
  commitment: 'confirmed',
  watchData: { from: PAYER, nonce: 0, sinceBlock: 1 },
  ...over,
});

beforeEach(async () => {
  ({ core, key, stop } = await coreWithKey({ rateLimit: { perSecond: 100_000, burst: 100_000 } }));
});
afterEach(() => stop());

describe('recordFoundTransfer', () => {
  it("finds an intent's own transaction after the watcher finalized it: matched, nothing moves", async () => {
    const intent = (await call('POST', '/v1/intents', { chain: 'eip155:84532', token: 'USDC', amount: '3', requestor: REQUESTOR })).body.intent;
    const tx = transfer().txSignature;
    await core.runtime.write(async (w) => {
      const pending = (await w.apply((await w.get(intent.id))!, { type: 'SUBMIT', at: w.now, txSignature: tx }, 'throw', { fulfiller: PAYER }))!;
      return w.apply(pending, { type: 'CHAIN_FINALIZED', at: w.now, txSignature: tx }, 'throw');
    });
    const before = (await call('GET', `/v1/intents/${intent.id}`)).body.intent;
    expect(before.state).toBe('finalized');
    const r = await recordFoundTransfer(core.services, transfer({ commitment: 'finalized' }));
    expect(r.payment).toMatchObject({ status: 'matched', reason: null, intentId: intent.id, from: PAYER, to: REQUESTOR, tokenAddress: USDC });
    expect((await call('GET', `/v1/intents/${intent.id}`)).body.intent).toEqual(before);
  });

  it('the same transfer reported by two scans at once: one record, one set of events', async () => {
    const intent = (await call('POST', '/v1/intents', { chain: 'eip155:84532', token: 'USDC', amount: '3', requestor: REQUESTOR })).body.intent;
    const [a, b] = await Promise.all([
      recordFoundTransfer(core.services, transfer()),
      recordFoundTransfer(core.services, transfer({ commitment: 'finalized' })),
    ]);
    expect([a.outcome, b.outcome].sort()).toEqual(['known', 'recorded']);
    expect(a.payment?.id).toBe(b.payment?.id);
    const events = (await call('GET', '/v1/events?limit=100')).body.events.map((e: any) => e.type).reverse();
    expect(events).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
    expect((await call('GET', '/v1/payments')).body.payments).toHaveLength(1);
    expect((await call('GET', `/v1/intents/${intent.id}`)).body.intent).toMatchObject({ state: 'finalized', fulfiller: PAYER });
  });

  it('ignores a token not configured on the chain, and a receiver no intent ever named', async () => {
    await call('POST', '/v1/intents', { chain: 'eip155:84532', token: 'USDC', amount: '3', requestor: REQUESTOR });
    expect((await recordFoundTransfer(core.services, transfer({ tokenAddress: `0x${'99'.repeat(20)}` }))).outcome).toBe('ignored');
    expect((await recordFoundTransfer(core.services, transfer({ to: `0x${'77'.repeat(20)}` }))).outcome).toBe('ignored');
    expect((await call('GET', '/v1/payments')).body.payments).toHaveLength(0);
  });

  it("pays an open intent that is older than its receiver's newest 1000 intents (a busy merchant's one address)", async () => {
    // The one this transfer pays, then 1000 newer intents of other amounts to the same address.
    const paid = (await call('POST', '/v1/intents', { chain: 'eip155:84532', token: 'USDC', amount: '7.77', requestor: REQUESTOR })).body.intent;
    for (let k = 0; k < 1000; k++) {
      const r = await call('POST', '/v1/intents', { chain: 'eip155:84532', token: 'USDC', amount: `1.${String(k).padStart(6, '0')}`, requestor: REQUESTOR });
      expect(r.status).toBe(201);
    }
    const r = await recordFoundTransfer(core.services, transfer({ amountBaseUnits: 7_770_000n, txSignature: `0x${'cd'.repeat(32)}` }));
    expect(r.payment).toMatchObject({ status: 'matched', reason: null, intentId: paid.id });
    const now = (await call('GET', `/v1/intents/${paid.id}`)).body.intent;
    expect(now).toMatchObject({ state: 'confirmed', txSignature: `0x${'cd'.repeat(32)}`, fulfiller: PAYER.toLowerCase() });
  }, 120_000);

  it("a late transfer to a closed intent older than its receiver's newest 1000 intents is its late payment (not unmatched)", async () => {
    // The intent the payer pays after it was cancelled, then 1000 newer intents of other amounts to
    // the same address; then the transfer: it is that intent's latePayment (refundable), with its event.
    const gone = (await call('POST', '/v1/intents', { chain: 'eip155:84532', token: 'USDC', amount: '7.78', requestor: REQUESTOR })).body.intent;
    expect((await call('POST', `/v1/intents/${gone.id}/cancel`)).status).toBe(200);
    for (let k = 0; k < 1000; k++) {
      const r = await call('POST', '/v1/intents', { chain: 'eip155:84532', token: 'USDC', amount: `2.${String(k).padStart(6, '0')}`, requestor: REQUESTOR });
      expect(r.status).toBe(201);
    }
    const tx = `0x${'ef'.repeat(32)}`;
    const r = await recordFoundTransfer(core.services, transfer({ amountBaseUnits: 7_780_000n, txSignature: tx }));
    expect(r.payment).toMatchObject({ status: 'late', reason: 'intent_closed', intentId: gone.id });
    const now = (await call('GET', `/v1/intents/${gone.id}`)).body.intent;
    expect(now).toMatchObject({ state: 'cancelled', latePayment: { txSignature: tx, amountBaseUnits: '7780000' } });
    const events = (await call('GET', '/v1/events?limit=5')).body.events as Array<{ type: string }>;
    expect(events.map((e) => e.type)).toContain('intent.late_payment');
  }, 120_000);
});
