// Review finding 4 (tenant isolation): a transfer names no account, so the candidates of a
// receiver can span accounts. Two accounts with an open intent to one receiver and amount make a
// found transfer `ambiguous` (contract 11: none is chosen), recorded under one of them. When a
// submit by txSignature then settles which intent it paid, the record joins THAT intent's ledger:
// it must not stay in the other account's (naming an intent of another tenant) while the paying
// account's ledger never lists the money that paid it. A real core (either store, real
// migrations), two accounts, their API keys, the real routes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FoundTransfer } from '../../src/chains/types';
import type { Core } from '../../src/compose';
import { recordFoundTransfer } from '../../src/intents/record-found-transfer';
import { coreWithKey } from '../support/core';

const CHAIN = 'eip155:84532';
const REQUESTOR = '0x1111111111111111111111111111111111111111';
const PAYER = '0x2222222222222222222222222222222222222222';
const TX = `0x${'cd'.repeat(32)}`;
let stop: () => Promise<void>;
let core: Core;
const keys: Record<'a' | 'b', string> = { a: '', b: '' };

const call = async (who: 'a' | 'b', method: string, path: string, body?: unknown) => {
  const res = await core.app.handle(
    new Request(`http://local${path}`, {
      method,
      headers: { authorization: `Bearer ${keys[who]}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }),
  );
  return { status: res.status, body: (await res.json()) as any };
};

const transfer = (commitment: FoundTransfer['commitment']): FoundTransfer => ({
  chain: CHAIN, txSignature: TX, tokenAddress: '0x036cbd53842c5426634e7929541ec2318f3dcf7e', from: PAYER.toLowerCase(),
  to: REQUESTOR.toLowerCase(), amountBaseUnits: 3_000_000n, references: [], landedAt: Date.now() + 1000, commitment,
  watchData: { from: PAYER, nonce: 0, sinceBlock: 1 },
});

beforeEach(async () => {
  let key: string;
  ({ core, key, stop } = await coreWithKey({ rateLimit: { perSecond: 100_000, burst: 100_000 } }));
  keys.a = key;
  const other = await core.store.repos.accounts.create({ name: 'other', plan: 'pro' });
  keys.b = (await core.store.repos.apiKeys.create({ accountId: other.id, mode: 'test' })).key;
});
afterEach(() => stop());

describe('a transfer whose candidates span accounts', () => {
  it('ambiguous under one account; settled by the other account\'s submit, the record moves to the paying intent\'s ledger', async () => {
    const open = async (who: 'a' | 'b') =>
      (await call(who, 'POST', '/v1/intents', { chain: CHAIN, token: 'USDC', amount: '3', requestor: REQUESTOR })).body.intent.id as string;
    const intents = { a: await open('a'), b: await open('b') };

    const first = await recordFoundTransfer(core.services, transfer('confirmed'));
    expect(first.payment).toMatchObject({ status: 'unmatched', reason: 'ambiguous', intentId: null });
    const id = first.payment!.id;
    const holder = (await call('a', 'GET', `/v1/payments/${id}`)).status === 200 ? 'a' : 'b';
    const payer = holder === 'a' ? 'b' : 'a';
    expect((await call(payer, 'GET', `/v1/payments/${id}`)).status).toBe(404);

    // The account that did not get the record settles it: a submit by txSignature for its intent
    // (as submit-by-tx-signature writes it once the chain says the transaction is confirmed).
    await core.runtime.write(async (w) => {
      const pending = (await w.apply((await w.get(intents[payer]))!, { type: 'SUBMIT', at: w.now, txSignature: TX }, 'throw', { fulfiller: PAYER }))!;
      return w.apply(pending, { type: 'CHAIN_CONFIRMED', at: w.now, txSignature: TX }, 'throw');
    });
    const again = await recordFoundTransfer(core.services, transfer('finalized'));
    expect(again.payment).toMatchObject({ id, status: 'matched', reason: null, intentId: intents[payer] });

    // In the paying account's ledger, and no longer in the other's (which would name another tenant's intent).
    const mine = await call(payer, 'GET', `/v1/payments/${id}`);
    expect(mine.status).toBe(200);
    expect(mine.body.payment).toMatchObject({ status: 'matched', intentId: intents[payer], txSignature: TX });
    expect((await call(payer, 'GET', '/v1/payments')).body.payments.map((p: { id: string }) => p.id)).toEqual([id]);
    expect((await call(holder, 'GET', `/v1/payments/${id}`)).status).toBe(404);
    expect((await call(holder, 'GET', '/v1/payments')).body.payments).toEqual([]);
    // The other account's intent was never moved by that money.
    expect((await call(holder, 'GET', `/v1/intents/${intents[holder]}`)).body.intent).toMatchObject({ state: 'created', txSignature: null });
  });
});
