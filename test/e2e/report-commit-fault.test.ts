// Issue 15 item 7: the COMMIT of a chain report fails (a fault injected through createCore's
// test-only `faults.chainReport`, which fails the transaction at COMMIT after every statement
// succeeded). The intent is not unwatched and the observation is not lost: it is written again
// and the intent reaches finalized with its events, without a restart. On anvil and on the local
// Solana (whose watcher forgets a transaction once it reported it finalized).
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, waitFor } from '../support/api';
import { DEV_KEYS, type Anvil } from '../support/evm/anvil';
import { signBlob } from '../support/evm/chain';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, type LocalSolana } from '../support/solana/local-solana';
import { signMessageBlob } from '../support/solana/wallet';
import { startBlindProxy, type BlindProxy } from '../support/blind-proxy';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';
import { startPayChains } from '../support/pay-chains';

const BASE = 'eip155:84532';

let anvil: Anvil;
let sol: LocalSolana;
let usdc: Hex;
let s: TestServer;
let api: ApiClient;
const payer = privateKeyToAccount(DEV_KEYS[6]);
let solPayer: KeyPairSigner;
let proxies: BlindProxy[] = [];
/** Intent id -> report types whose next write fails at COMMIT; and the faults that fired. */
const failOnce = new Map<string, Set<string>>();
const fired: Array<{ intentId: string; type: string }> = [];

beforeAll(async () => {
  ({ anvil, sol, usdc, solPayer } = await startPayChains(payer.address));
  // Log and history searches find nothing: the detectors cannot move the intents, so every step
  // is the chain watcher's report (whose COMMIT the fault makes fail).
  proxies = await Promise.all([
    startBlindProxy(anvil.url, { eth_getLogs: [] }),
    startBlindProxy(sol.url, { getSignaturesForAddress: [] }),
  ]);
  s = await startTestServer(
    {
      networks: {
        [BASE]: { rpc: [proxies[0]!.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300, tokens: { USDC: { address: usdc, decimals: 6 } } },
        [DEVNET_CHAIN]: { rpc: [proxies[1]!.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300 },
      },
    },
    {
      core: {
        faults: {
          chainReport(report, fault) {
            if (failOnce.get(report.intentId)?.delete(report.type)) {
              fired.push(report);
              fault.failCommit();
            }
          },
        },
      },
    },
  );
  api = s.api((await s.account()).key);
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await Promise.all(proxies.map((p) => p.stop()));
  await Promise.all([anvil?.stop(), sol?.stop()]);
});

async function paidDespiteFailedCommits(id: string, submit: () => Promise<void>): Promise<void> {
  failOnce.set(id, new Set(['confirmed', 'finalized']));
  await submit();
  await waitFor(async () => ((await api.get(`/v1/intents/${id}`)).body.intent.state === 'finalized' ? true : null), 60_000, 'finalized');
  // Both COMMITs did fail (the fault fired), and each verdict was written once, in order.
  expect(fired.filter((f) => f.intentId === id).map((f) => f.type).sort()).toEqual(['confirmed', 'finalized']);
  expect(await eventTypes(api, id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
}

describe('a chain report whose COMMIT fails', () => {
  it('EVM (anvil): the intent stays watched and reaches finalized without a restart', async () => {
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const id = (await api.post('/v1/intents', { chain: BASE, token: 'USDC', amount: '3', requestor })).body.intent.id as string;
    await paidDespiteFailedCommits(id, async () => {
      const built = await api.post(`/v1/intents/${id}/build`, { fulfiller: payer.address });
      const r = await api.post(`/v1/intents/${id}/submit`, { signedTransaction: await signBlob(payer, built.body.transaction.blob) });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    });
  }, 120_000);

  it('Solana (local LiteSVM): the watcher reports finalized once; the observation is kept and written again', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const id = (await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '2', requestor })).body.intent.id as string;
    await paidDespiteFailedCommits(id, async () => {
      const built = await api.post(`/v1/intents/${id}/build`, { fulfiller: solPayer.address });
      const r = await api.post(`/v1/intents/${id}/submit`, { signedTransaction: await signMessageBlob(built.body.transaction.blob, [solPayer]) });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    });
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(2_000_000n);
  }, 120_000);
});
