// Contract 14, "build is idempotent: a second independently valid payment is never handed out",
// when the builds come at once. Two wallets answer one intent's QR at the same instant (the pay
// page and the Solana Pay transaction request call the same build verb as the API): one of them is
// handed a transaction, the other is refused as it would be a moment later (another fulfiller is
// attached). Before the fix both got a transaction, each wallet could send its own, and the
// requestor was paid twice. Real server, real local Solana (LiteSVM, real SPL Token), real signers.
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, intentIn, waitFor } from '../support/api';
import { startHookedSolana, type HookedSolana } from '../support/solana/hooked-node';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, type LocalSolana } from '../support/solana/local-solana';
import { sendRaw } from '../support/solana/transfer';
import { signMessageBlob } from '../support/solana/wallet';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

const ROUNDS = 3;
const WALLETS = 3;

let node: HookedSolana;
let sol: LocalSolana;
let s: TestServer;
let api: ApiClient;
let wallets: KeyPairSigner[];

beforeAll(async () => {
  // The node as seen through a slow link for the fee estimate, the last read of a fresh build:
  // builds started a few slots apart are all still reading when the first one writes.
  node = await startHookedSolana(WALLETS, async (calls) => {
    if (calls.some((c) => c.method === 'getFeeForMessage')) await Bun.sleep(150);
    return undefined;
  });
  ({ sol, wallets } = node);
  s = await startTestServer({ networks: { [DEVNET_CHAIN]: { rpc: [node.rpc], pollIntervalMs: 100, rebroadcastIntervalMs: 300 } } });
  api = s.api((await s.account()).key);
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await node?.stop();
});

describe('builds for one intent at once', () => {
  it('different wallets: one is handed a transaction, the others are refused; the requestor is paid once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const requestor = (await generateKeyPairSigner()).address;
      const created = await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '3.5', requestor });
      expect(created.status).toBe(201);
      const id = created.body.intent.id as string;

      const answers = await Promise.all(wallets.map((w) => api.post(`/v1/intents/${id}/build`, { fulfiller: w.address })));
      const handedOut = answers.flatMap((r, k) => (r.status === 200 ? [{ wallet: wallets[k]!, blob: r.body.transaction.blob as string }] : []));
      // Every wallet handed a transaction may send it itself (sign-and-send, Solana Pay): they all do.
      const sent = await Promise.all(handedOut.map(async (h) => sendRaw(sol, await signMessageBlob(h.blob, [h.wallet]))));
      const done = await waitFor(intentIn(api, id, 'finalized'), 30_000, `round ${round} finalized`);
      await waitFor(() => sent.every((sig) => sol.chain.landedTx(sig) !== undefined), 10_000, 'every handed-out transaction landed');

      expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor), `round ${round}: ${handedOut.length} transactions handed out`).toBe(3_500_000n);
      expect(handedOut).toHaveLength(1);
      expect(done.fulfiller).toBe(handedOut[0]!.wallet.address);
      for (const r of answers.filter((a) => a.status !== 200)) expectError(r, 400, 'request.invalid_param', 'fulfiller');
    }
  }, 240_000);

  it('one wallet asking several times at once (a double click, a wallet that fetches twice): the same transaction every time', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const requestor = (await generateKeyPairSigner()).address;
      const created = await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '1.25', requestor });
      const id = created.body.intent.id as string;
      const wallet = wallets[round % WALLETS]!;
      // A slot or two apart, so the later builds read a newer blockhash than the first one.
      const answers = await Promise.all(
        Array.from({ length: 4 }, async (_, k) => {
          await Bun.sleep(k * 50);
          return api.post(`/v1/intents/${id}/build`, { fulfiller: wallet.address });
        }),
      );
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const blobs = new Set(answers.map((r) => r.body.transaction.blob as string));
      expect(blobs.size, `round ${round}: distinct transactions handed out`).toBe(1);
    }
  }, 120_000);
});
