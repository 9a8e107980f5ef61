// A refund waits while its original is not paid (contract section 4, `original_not_paid`): on
// anvil a wallet pays an intent, detection confirms it, the merchant refunds it, then a one-block
// reorg takes the payment out of the chain. The original is back to pending, and build and
// submit of its refund answer 409 before any chain work; the refund itself is untouched.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, intentIn, waitFor } from '../support/api';
import { DEV_KEYS, type Anvil } from '../support/evm/anvil';
import { payFromUri } from '../support/evm/pay-uri';
import { BASE, startProxiedBase, type ProxiedBase } from '../support/evm/proxied-base';
import type { ApiClient } from '../support/server';

let base: ProxiedBase;
let anvil: Anvil;
let api: ApiClient;
const payer = privateKeyToAccount(DEV_KEYS[6]);
/** Hashes whose receipt the chain watcher has read (a batch with the finalized block and the receipt). */
const watchedReceipts: string[] = [];

beforeAll(async () => {
  // A recording proxy: the reorg comes after the watcher has seen the receipt (a reorg before it,
  // told by the block detection saw it in, is test/e2e/found-reorg-evm.test.ts).
  base = await startProxiedBase(payer, (calls, answers) => {
    if (calls.some((c) => c.method === 'eth_getBlockByNumber' && c.params[0] === 'finalized')) {
      for (const c of calls.filter((x) => x.method === 'eth_getTransactionReceipt')) {
        if (answers.find((a) => a.id === c.id)?.result) watchedReceipts.push(String(c.params[0]).toLowerCase());
      }
    }
    return false;
  });
  ({ anvil, api } = base);
}, 60_000);

afterAll(async () => {
  await base?.stop();
});

const stateOf = (id: string, want: string) => intentIn(api, id, want);

describe('refund of an original that a reorg moved back', () => {
  it('build and submit of the refund are 409 intent.invalid_state with details.reason original_not_paid', async () => {
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const intent = (await api.post('/v1/intents', { chain: BASE, token: 'USDC', amount: '3', requestor, fulfiller: payer.address })).body.intent;
    const { hash } = await payFromUri(anvil, payer, intent.paymentUri);
    await waitFor(stateOf(intent.id, 'confirmed'), 20_000, 'confirmed');
    const refund = (await api.post(`/v1/intents/${intent.id}/refund`)).body.intent;
    expect(refund).toMatchObject({ state: 'created', refundOf: intent.id, requestor: payer.address });
    await waitFor(() => watchedReceipts.includes(hash.toLowerCase()), 20_000, 'the watcher to read the receipt');

    // Replace the last block (the payment) with an empty one: the transfer is gone from chain and
    // pool, and nobody holds its bytes to send it again (the wallet sent it, PayForge detected it).
    await anvil.rpc('anvil_reorg', [1, []]);
    expect(await anvil.rpc('eth_getTransactionReceipt', [hash])).toBeNull();
    const back = await waitFor(stateOf(intent.id, 'pending'), 20_000, 'original back to pending');
    expect(back.confirmedAt).toBeNull();

    const details = { intent_id: refund.id, current_state: 'created', reason: 'original_not_paid', refund_of: intent.id, original_state: 'pending' };
    const build = expectError(await api.post(`/v1/intents/${refund.id}/build`, {}), 409, 'intent.invalid_state');
    expect(build.details).toEqual(details);
    const submit = expectError(await api.post(`/v1/intents/${refund.id}/submit`, { txSignature: `0x${'ab'.repeat(32)}` }), 409, 'intent.invalid_state');
    expect(submit.details).toEqual(details);
    expect((await api.get(`/v1/intents/${refund.id}`)).body.intent).toMatchObject({ state: 'created', txSignature: null });
  });
});
