// A refund waits while its original is not paid (contract section 4, `original_not_paid`): on
// anvil a wallet pays an intent, detection confirms it, the merchant refunds it, then a one-block
// reorg takes the payment out of the chain. The original is back to pending, and build and
// submit of its refund answer 409 before any chain work; the refund itself is untouched.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, intentIn, waitFor } from '../support/api';
import { DEV_KEYS, startAnvil, type Anvil } from '../support/evm/anvil';
import { payFromUri } from '../support/evm/pay-uri';
import { deployToken } from '../support/evm/token';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

const BASE = 'eip155:84532';
let anvil: Anvil;
let s: TestServer;
let api: ApiClient;
let proxy: ReturnType<typeof Bun.serve>;
const payer = privateKeyToAccount(DEV_KEYS[6]);
/** Hashes whose receipt the chain watcher has read (a batch with the finalized block and the receipt). */
const watchedReceipts: string[] = [];

beforeAll(async () => {
  anvil = await startAnvil('base'); // automine: one block per transaction, `finalized` two blocks behind
  const usdc = await deployToken(anvil, { [payer.address]: 100_000_000n });
  // A recording proxy: the reorg comes after the watcher has seen the receipt (a reorg before it,
  // told by the block detection saw it in, is test/e2e/found-reorg-evm.test.ts).
  proxy = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const body = await req.text();
      const upstream = await (await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text();
      const calls = [JSON.parse(body)].flat() as Array<{ id: number; method: string; params: unknown[] }>;
      const answers = [JSON.parse(upstream)].flat() as Array<{ id: number; result?: unknown }>;
      if (calls.some((c) => c.method === 'eth_getBlockByNumber' && c.params[0] === 'finalized')) {
        for (const c of calls.filter((x) => x.method === 'eth_getTransactionReceipt')) {
          if (answers.find((a) => a.id === c.id)?.result) watchedReceipts.push(String(c.params[0]).toLowerCase());
        }
      }
      return new Response(upstream, { headers: { 'content-type': 'application/json' } });
    },
  });
  s = await startTestServer({
    networks: { [BASE]: { rpc: [`http://127.0.0.1:${proxy.port}`], pollIntervalMs: 50, tokens: { USDC: { address: usdc, decimals: 6 } } } },
  });
  api = s.api((await s.account({ plan: 'pro' })).key);
}, 60_000);

afterAll(async () => {
  await s?.stop();
  proxy?.stop(true);
  await anvil?.stop();
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
