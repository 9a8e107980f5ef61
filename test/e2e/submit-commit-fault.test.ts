// Crash window of submit, second kind (issue 9 item 1): the chain accepted the broadcast, then
// the write that records it fails (a fault injected through createCore's test-only `faults`
// option, never reachable from config or HTTP). The transaction counts as sent: reconciliation
// moves the intent to pending, the watcher takes it to finalized with its events, and a second,
// different payment is refused all along. On anvil and on the local Solana.
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { erc20Abi, keccak256, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, expectError, intentIn, waitFor } from '../support/api';
import { startCrashProxy, type CrashProxy } from '../support/crash-proxy';
import { DEV_KEYS, type Anvil } from '../support/evm/anvil';
import { b64ToHex, signBlob } from '../support/evm/chain';
import { ownerClient } from '../support/evm/token';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, type LocalSolana } from '../support/solana/local-solana';
import { withComputeUnitPrice } from '../support/solana/reprice';
import { signMessageBlob } from '../support/solana/wallet';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';
import { startPayChains } from '../support/pay-chains';

const BASE = 'eip155:84532';

let anvil: Anvil;
let sol: LocalSolana;
let usdc: Hex;
let s: TestServer;
let api: ApiClient;
const payer = privateKeyToAccount(DEV_KEYS[5]);
let solPayer: KeyPairSigner;
let solProxy: CrashProxy;
/** Intents whose next "recorded as sent" write fails once. */
const failOnce = new Set<string>();

beforeAll(async () => {
  ({ anvil, sol, usdc, solPayer } = await startPayChains(payer.address));
  solProxy = await startCrashProxy(sol.url);
  s = await startTestServer(
    {
      networks: {
        [BASE]: { rpc: [anvil.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300, tokens: { USDC: { address: usdc, decimals: 6 } } },
        [DEVNET_CHAIN]: { rpc: [solProxy.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300 },
      },
    },
    {
      core: {
        faults: {
          afterBroadcast(intentId) {
            if (failOnce.delete(intentId)) throw new Error('injected fault: the commit after the broadcast fails');
          },
        },
      },
    },
  );
  api = s.api((await s.account()).key);
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await solProxy?.stop();
  await Promise.all([anvil?.stop(), sol?.stop()]);
});

const stateOf = (id: string, want: string) => intentIn(api, id, want);

/** `resubmit`: the client retries the same bytes (answered at once); otherwise reconciliation alone applies it. */
async function failedCommit(id: string, signedTransaction: string, other: string, resubmit: boolean): Promise<void> {
  failOnce.add(id);
  const r = await api.post(`/v1/intents/${id}/submit`, { signedTransaction });
  expectError(r, 500, 'internal.error');
  // Broadcast, recorded `sending`: a second, different payment is refused before any broadcast.
  const second = await api.post(`/v1/intents/${id}/submit`, { signedTransaction: other });
  expect(second.status).toBe(409);
  expect(['idempotency.in_progress', 'intent.invalid_state', 'intent.already_fulfilled']).toContain(second.body.error.code);
  if (resubmit) {
    // The same bytes again: 200, pending (it counts as sent).
    const same = await api.post(`/v1/intents/${id}/submit`, { signedTransaction });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(['pending', 'confirmed', 'finalized']).toContain(same.body.intent.state);
  } else {
    // Reconciliation (or the EVM log scan, whichever comes first) moves it on; never back to payable.
    await waitFor(async () => (await api.get(`/v1/intents/${id}`)).body.intent.state !== 'created', 30_000, 'reconciled');
  }
  await waitFor(stateOf(id, 'finalized'), 60_000, 'finalized');
  expect((await eventsOf(api, id)).map((e) => e.type)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
}

describe('a commit that fails after a successful broadcast', () => {
  it('EVM (anvil): counts as sent; reconciliation moves it on; finalized with its events, paid once', async () => {
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const id = (await api.post('/v1/intents', { chain: BASE, token: 'USDC', amount: '8', requestor })).body.intent.id as string;
    const built = await api.post(`/v1/intents/${id}/build`, { fulfiller: payer.address });
    const signed = await signBlob(payer, built.body.transaction.blob);
    expect(await anvil.rpc('eth_getTransactionByHash', [keccak256(b64ToHex(signed))])).toBeNull();
    const other = await signBlob(payer, built.body.transaction.blob, { maxPriorityFeePerGas: 2n });
    await failedCommit(id, signed, other, false);
    expect(await ownerClient(anvil).readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [requestor] })).toBe(8_000_000n);
    expect(await anvil.rpc('eth_getTransactionByHash', [keccak256(b64ToHex(other))])).toBeNull();
  }, 120_000);

  it('Solana (local LiteSVM): counts as sent; the same bytes resubmitted answer 200 pending; finalized with its events, paid once', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const id = (await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '4', requestor })).body.intent.id as string;
    const built = await api.post(`/v1/intents/${id}/build`, { fulfiller: solPayer.address });
    const signed = await signMessageBlob(built.body.transaction.blob, [solPayer]);
    const other = await signMessageBlob(withComputeUnitPrice(built.body.transaction.blob, 7_777), [solPayer]);
    await failedCommit(id, signed, other, true);
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(4_000_000n);
  }, 120_000);

  it('a broadcast whose answer is lost (HTTP 500 after the node took it) counts as sent: 200 pending, finalized, paid once', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const id = (await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '1.1', requestor })).body.intent.id as string;
    const built = await api.post(`/v1/intents/${id}/build`, { fulfiller: solPayer.address });
    const signed = await signMessageBlob(built.body.transaction.blob, [solPayer]);
    solProxy.loseNextAnswer();
    const sub = await api.post(`/v1/intents/${id}/submit`, { signedTransaction: signed });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    expect(['pending', 'confirmed', 'finalized']).toContain(sub.body.intent.state);
    const other = await signMessageBlob(withComputeUnitPrice(built.body.transaction.blob, 9_999), [solPayer]);
    const second = await api.post(`/v1/intents/${id}/submit`, { signedTransaction: other });
    expect(second.status).toBe(409);
    // pending, or already confirmed on a fast chain.
    expect(['intent.invalid_state', 'intent.already_fulfilled']).toContain(second.body.error.code);
    await waitFor(stateOf(id, 'finalized'), 60_000, 'finalized');
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(1_100_000n);
  }, 120_000);
});
