// Issue 13 item 1: many DIFFERENT valid signed payments for one intent, submitted at once through
// the real HTTP server, on anvil (nonces n, n+1, ...) and on the local Solana (compute-price
// variants): exactly one is ever broadcast, the requestor is paid exactly once, every other
// submit answers 409 without reaching the chain. Several rounds per family.
import {
  getBase58Decoder,
  generateKeyPairSigner,
  type KeyPairSigner,
} from '@solana/kit';
import { erc20Abi, keccak256, parseTransaction, type Hex, type TransactionSerializableEIP1559 } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intentIn, waitFor } from '../support/api';
import { DEV_KEYS, type Anvil } from '../support/evm/anvil';
import { b64ToHex, signBlob } from '../support/evm/chain';
import { ownerClient } from '../support/evm/token';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, type LocalSolana } from '../support/solana/local-solana';
import { withComputeUnitPrice } from '../support/solana/reprice';
import { signMessageBlob } from '../support/solana/wallet';
import { startTestServer, type ApiClient, type ApiResponse, type TestServer } from '../support/server';
import { startPayChains } from '../support/pay-chains';

const BASE = 'eip155:84532';
const VARIANTS = 10;
const ROUNDS = 5;

let anvil: Anvil;
let sol: LocalSolana;
let usdc: Hex;
let s: TestServer;
let api: ApiClient;
const payer = privateKeyToAccount(DEV_KEYS[2]);
let solPayer: KeyPairSigner;

beforeAll(async () => {
  ({ anvil, sol, usdc, solPayer } = await startPayChains(payer.address));
  s = await startTestServer({
    networks: {
      [BASE]: { rpc: [anvil.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300, tokens: { USDC: { address: usdc, decimals: 6 } } },
      [DEVNET_CHAIN]: { rpc: [sol.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300 },
    },
  });
  api = s.api((await s.account()).key);
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await Promise.all([anvil?.stop(), sol?.stop()]);
});

const stateOf = (id: string, want: string) => intentIn(api, id, want);

/**
 * Fire every body, `spreadMs` apart (the outside tester's "a few milliseconds apart"): later
 * submits then overlap every phase of the first one (verify, screen, broadcast, commit).
 */
async function fireAll(id: string, bodies: string[], spreadMs: number): Promise<ApiResponse[]> {
  return Promise.all(
    bodies.map(async (signedTransaction, k) => {
      if (k > 0) await Bun.sleep(k * spreadMs);
      return api.post(`/v1/intents/${id}/submit`, { signedTransaction });
    }),
  );
}

function expectOneWinner(responses: ApiResponse[]): ApiResponse {
  const winners = responses.filter((r) => r.status === 200);
  const losers = responses.filter((r) => r.status !== 200);
  expect(winners, JSON.stringify(responses.map((r) => [r.status, r.body?.error?.code]))).toHaveLength(1);
  for (const l of losers) {
    expect(l.status).toBe(409);
    // Another is being sent; or it is pending; or (on a loaded machine) already confirmed.
    expect(['idempotency.in_progress', 'intent.invalid_state', 'intent.already_fulfilled']).toContain(l.body.error.code);
  }
  return winners[0]!;
}

describe('concurrent submits of different valid transactions for one intent', () => {
  it('EVM (anvil, nonces n..n+9): exactly one broadcast, one payment, every round', async () => {
    const client = ownerClient(anvil);
    for (let round = 0; round < ROUNDS; round++) {
      const requestor = privateKeyToAccount(generatePrivateKey()).address;
      const created = await api.post('/v1/intents', { chain: BASE, token: 'USDC', amount: '1.5', requestor });
      const id = created.body.intent.id as string;
      const built = await api.post(`/v1/intents/${id}/build`, { fulfiller: payer.address });
      expect(built.status).toBe(200);
      const tx = parseTransaction(b64ToHex(built.body.transaction.blob)) as TransactionSerializableEIP1559;
      const nonce = tx.nonce!;
      // Each variant alone pays the intent exactly; broadcast together they would ALL be mined.
      const variants = await Promise.all(Array.from({ length: VARIANTS }, (_, k) => signBlob(payer, built.body.transaction.blob, { nonce: nonce + k })));
      const hashes = variants.map((v) => keccak256(b64ToHex(v)));
      expect(new Set(hashes).size).toBe(VARIANTS);
      const winner = expectOneWinner(await fireAll(id, variants, [1, 3, 2][round % 3]!));
      expect(['pending', 'confirmed', 'finalized']).toContain(winner.body.intent.state);

      // The variants are equally valid, so on a loaded machine a later nonce may win the race;
      // it can be mined only once the nonces below it are used: fill them with plain self-sends
      // (no token moves), as a wallet would.
      const winnerNonce = nonce + hashes.indexOf(winner.body.txSignature);
      expect(winnerNonce).toBeGreaterThanOrEqual(nonce);
      for (let n = nonce; n < winnerNonce; n++) {
        const gap = await payer.signTransaction({ ...tx, to: payer.address, data: undefined, value: 0n, gas: 21_000n, nonce: n });
        await anvil.rpc('eth_sendRawTransaction', [gap]);
      }

      await waitFor(stateOf(id, 'finalized'), 60_000, `round ${round} finalized`);
      expect(await client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [requestor] })).toBe(1_500_000n);
      // The payer's account shows the winner as its last transaction; no loser ever reached the node.
      expect(await client.getTransactionCount({ address: payer.address, blockTag: 'pending' })).toBe(winnerNonce + 1);
      for (const hash of hashes) {
        if (hash === winner.body.txSignature) continue;
        expect(await anvil.rpc('eth_getTransactionByHash', [hash])).toBeNull();
      }
    }
  }, 300_000);

  it('Solana (local LiteSVM, compute-price variants): exactly one broadcast, one payment, every round', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const requestor = (await generateKeyPairSigner()).address;
      const created = await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '2.25', requestor });
      const id = created.body.intent.id as string;
      const built = await api.post(`/v1/intents/${id}/build`, { fulfiller: solPayer.address });
      expect(built.status).toBe(200);
      const payerBefore = await sol.tokenBalance(DEVNET_USDC_MINT, solPayer.address);
      const variants = await Promise.all(
        Array.from({ length: VARIANTS }, (_, k) => signMessageBlob(withComputeUnitPrice(built.body.transaction.blob, 1_000 + k), [solPayer])),
      );
      const winner = expectOneWinner(await fireAll(id, variants, [1, 3, 2][round % 3]!));
      expect(['pending', 'confirmed', 'finalized']).toContain(winner.body.intent.state);

      await waitFor(stateOf(id, 'finalized'), 60_000, `round ${round} finalized`);
      expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(2_250_000n);
      expect(await sol.tokenBalance(DEVNET_USDC_MINT, solPayer.address)).toBe(payerBefore! - 2_250_000n);
      const signatures = variants.map(firstSignature);
      expect(new Set(signatures).size).toBe(VARIANTS);
      for (const sig of signatures) {
        if (sig === winner.body.txSignature) continue;
        expect(sol.chain.landedTx(sig)).toBeUndefined();
      }
      expect(sol.chain.landedTx(winner.body.txSignature)).toBeDefined();
    }
  }, 300_000);
});

function firstSignature(wire: string): string {
  const bytes = new Uint8Array(Buffer.from(wire, 'base64'));
  // Wire format: compact-u16 signature count (1 here), then the 64-byte signatures.
  return getBase58Decoder().decode(bytes.subarray(1, 65));
}
