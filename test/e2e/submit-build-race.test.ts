// A submit and a build for one intent at once (contract 11: the signer must be the fulfiller when the
// intent has one; section 4: a refund pays the original's fulfiller). Wallet A paid the intent from
// its own wallet and submits the signature; while PayForge reads that transaction from the chain,
// wallet B asks the pay page for a build, which attaches B as the fulfiller. The outcome must be one
// that the two requests one after the other could give: never an intent paid by A whose fulfiller is
// B (its refund would pay B, who never paid, and B holds a transaction of its own for it). Real
// server, real local Solana (LiteSVM, real SPL Token), behind a proxy that slows the transaction read
// and keeps the payment detectors blind (only the submit tells PayForge about A's transfer).
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, waitFor } from '../support/api';
import { startHookedSolana, type HookedSolana } from '../support/solana/hooked-node';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, type LocalSolana } from '../support/solana/local-solana';
import { sendRaw, walletTransfer } from '../support/solana/transfer';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

const ROUNDS = 3;

let node: HookedSolana;
let sol: LocalSolana;
let s: TestServer;
let api: ApiClient;
let a: KeyPairSigner;
let b: KeyPairSigner;

beforeAll(async () => {
  node = await startHookedSolana(2, async (calls) => {
    if (calls.every((c) => c.method === 'getSignaturesForAddress')) return calls.map(() => []);
    if (calls.some((c) => c.method === 'getTransaction')) await Bun.sleep(400);
    return undefined;
  });
  ({ sol } = node);
  [a, b] = node.wallets as [KeyPairSigner, KeyPairSigner];
  s = await startTestServer({
    networks: { [DEVNET_CHAIN]: { rpc: [node.rpc], pollIntervalMs: 100, rebroadcastIntervalMs: 300 } },
  });
  api = s.api((await s.account({ plan: 'pro' })).key);
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await node?.stop();
});

describe('a submit by signature and a build for another wallet at once', () => {
  it('never leaves an intent paid by one wallet with another as its fulfiller (nor its refund paying that other)', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const requestor = (await generateKeyPairSigner()).address;
      const created = await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '2', requestor });
      const id = created.body.intent.id as string;
      const destination = await sol.setTokenBalance(DEVNET_USDC_MINT, requestor, 0n);
      const paid = await walletTransfer(sol, { signer: a, source: await sol.ata(DEVNET_USDC_MINT, a.address), destination, mint: DEVNET_USDC_MINT, amount: 2_000_000n });
      sendRaw(sol, paid.wire);
      await waitFor(() => sol.chain.status(paid.signature, false)?.confirmationStatus === 'finalized', 20_000, 'the transfer finalized');

      const [submitted, built] = await Promise.all([
        api.post(`/v1/intents/${id}/submit`, { txSignature: paid.signature }),
        // While the submit reads the transaction (slowed to 400 ms), B's build commits.
        Bun.sleep(100).then(() => api.post(`/v1/intents/${id}/build`, { fulfiller: b.address })),
      ]);
      const now = (await api.get(`/v1/intents/${id}`)).body.intent;
      const outcome = `round ${round}: submit ${submitted.status}, build ${built.status}, intent ${now.state} fulfiller ${now.fulfiller === a.address ? 'A' : now.fulfiller === b.address ? 'B' : now.fulfiller}`;
      if (now.txSignature === paid.signature) {
        expect(now.fulfiller, outcome).toBe(a.address);
        const refund = await api.post(`/v1/intents/${id}/refund`);
        expect(refund.status, outcome).toBe(200);
        expect(refund.body.intent.requestor, outcome).toBe(a.address);
      }
      // One after the other, one of them is refused: the build of a paid intent (409), or a
      // signature whose signer is not the fulfiller the build attached (422 transaction.mismatch).
      expect(submitted.status === 200 && built.status === 200, outcome).toBe(false);
      if (submitted.status !== 200) expectError(submitted, 422, 'transaction.mismatch', 'txSignature');
      else expect(built.status, outcome).toBe(409);
    }
  }, 120_000);
});
