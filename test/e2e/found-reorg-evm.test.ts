// A payment FOUND by detection and then reorged out before the chain watcher ever read its receipt
// (contract 14: a reorg verdict needs the block where the receipt was seen; contract 11: detection
// drives the intent like a submit). On anvil a wallet pays from the intent's paymentUri, detection
// confirms the intent, and while the watcher's receipt reads are held back a one-block reorg
// replaces the payment with an empty block. The intent must go back to pending and stay there
// past finality: the merchant is never told money arrived that is not on chain.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, intentIn, waitFor } from '../support/api';
import { DEV_KEYS, type Anvil } from '../support/evm/anvil';
import { payFromUri } from '../support/evm/pay-uri';
import { BASE, startProxiedBase, type ProxiedBase } from '../support/evm/proxied-base';
import type { ApiClient } from '../support/server';

let base: ProxiedBase;
let anvil: Anvil;
let api: ApiClient;
const payer = privateKeyToAccount(DEV_KEYS[7]);
/** While true, the watcher's receipt reads answer a JSON-RPC error (no answer: it decides nothing). */
let holdWatcher = true;
/** Watcher ticks after the hold, per followed hash: the node's finalized block and whether the receipt was there. */
const watcherReads: Array<{ hash: string; finalized: number; receipt: boolean }> = [];

beforeAll(async () => {
  base = await startProxiedBase(payer, (calls, answers) => {
    // The watcher's batch is the one with the finalized block and receipts (the detector's have no receipts with it).
    const watcher = calls.some((c) => c.method === 'eth_getBlockByNumber' && c.params[0] === 'finalized') && calls.some((c) => c.method === 'eth_getTransactionReceipt');
    if (!watcher) return false;
    const fin = answers.find((a) => a.id === calls.find((c) => c.params[0] === 'finalized')!.id)?.result;
    for (const c of calls.filter((x) => x.method === 'eth_getTransactionReceipt')) {
      const a = answers.find((x) => x.id === c.id)!;
      if (holdWatcher) {
        delete a.result;
        a.error = { code: -32000, message: 'held by the test' };
      } else {
        watcherReads.push({ hash: String(c.params[0]).toLowerCase(), finalized: Number(fin?.number ?? -1), receipt: Boolean(a.result) });
      }
    }
    return true;
  });
  ({ anvil, api } = base);
}, 60_000);

afterAll(async () => {
  await base?.stop();
});

const stateOf = (id: string, want: string) => intentIn(api, id, want);

describe('a found payment reorged out before the watcher read its receipt', () => {
  it('goes back to pending and never finalizes on money that is not on chain', async () => {
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const intent = (await api.post('/v1/intents', { chain: BASE, token: 'USDC', amount: '4', requestor, fulfiller: payer.address })).body.intent;
    const { hash, receipt: mined } = await payFromUri(anvil, payer, intent.paymentUri);
    const confirmed = await waitFor(stateOf(intent.id, 'confirmed'), 20_000, 'detection to confirm the intent');
    expect(confirmed.txSignature.toLowerCase()).toBe(hash.toLowerCase());

    // Replace the payment's block with an empty one: gone from chain and pool, and nobody holds
    // its bytes to send it again. Only then may the watcher read: it never saw the receipt.
    await anvil.rpc('anvil_reorg', [1, []]);
    expect(await anvil.rpc('eth_getTransactionReceipt', [hash])).toBeNull();
    holdWatcher = false;
    const back = await waitFor(stateOf(intent.id, 'pending'), 20_000, 'the intent back to pending');
    expect(back.confirmedAt).toBeNull();

    // Past finality of the block the payment was in: the watcher reads it gone at final depth and
    // the intent stays pending, with no paid verdict after the reorg.
    await anvil.rpc('anvil_mine', ['0x4']);
    const block = Number(mined.blockNumber);
    const seenAt = watcherReads.length;
    await waitFor(() => watcherReads.slice(seenAt).some((r) => r.hash === hash.toLowerCase() && r.finalized >= block && !r.receipt), 20_000, 'a watcher read past finality');
    await waitFor(() => watcherReads.slice(seenAt).filter((r) => r.hash === hash.toLowerCase() && r.finalized >= block).length >= 2, 20_000, 'a second watcher read past finality');
    expect((await api.get(`/v1/intents/${intent.id}`)).body.intent).toMatchObject({ state: 'pending', finalizedAt: null });
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.pending']);
  }, 60_000);
});
