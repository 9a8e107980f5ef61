// Contract 11, "nothing that arrives is lost from view", for a busy receiver: more transfers reach
// the requestor's token account between two detector polls (a burst, or PayForge down for a while)
// than one getSignaturesForAddress page holds (100). The payment is the oldest of them and carries
// no reference (a wallet's plain transfer): only the token-account scan can find it, and it must
// read every page back to where it stopped, not the newest page alone. Real server, real local Solana
// (LiteSVM, real SPL Token), behind a proxy that hides signatures from the detector during the burst.
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intentIn, waitFor } from '../support/api';
import { blindSignatures, startHookedSolana, type HookedSolana } from '../support/solana/hooked-node';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, type LocalSolana } from '../support/solana/local-solana';
import { sendRaw, walletTransfer } from '../support/solana/transfer';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

const NOISE = 130;

let node: HookedSolana;
let sol: LocalSolana;
let blind = false;
let s: TestServer;
let api: ApiClient;
let payer: KeyPairSigner;
let other: KeyPairSigner;

beforeAll(async () => {
  node = await startHookedSolana(2, blindSignatures(() => blind));
  ({ sol } = node);
  [payer, other] = node.wallets as [KeyPairSigner, KeyPairSigner];
  s = await startTestServer({ networks: { [DEVNET_CHAIN]: { rpc: [node.rpc], pollIntervalMs: 100 } } });
  api = s.api((await s.account()).key);
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await node?.stop();
});

describe('a receiver credited more than one signature page between two polls', () => {
  it('the oldest transfer of the burst, the payment, is still found and drives its intent', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const ata = await sol.setTokenBalance(DEVNET_USDC_MINT, requestor, 0n);
    const created = await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '4.2', requestor });
    expect(created.status).toBe(201);
    const id = created.body.intent.id as string;

    blind = true;
    const from = async (signer: KeyPairSigner) => sol.ata(DEVNET_USDC_MINT, signer.address);
    const paid = await walletTransfer(sol, { signer: payer, source: await from(payer), destination: ata, mint: DEVNET_USDC_MINT, amount: 4_200_000n });
    sendRaw(sol, paid.wire);
    // Then other money to the same account (distinct amounts: distinct transactions), newer than the payment.
    const otherAta = await from(other);
    const noise: string[] = [];
    for (let k = 0; k < NOISE; k++) {
      const t = await walletTransfer(sol, { signer: other, source: otherAta, destination: ata, mint: DEVNET_USDC_MINT, amount: BigInt(k + 1) });
      noise.push(sendRaw(sol, t.wire));
    }
    const confirmed = (sig: string) => ['confirmed', 'finalized'].includes(sol.chain.status(sig, false)?.confirmationStatus ?? '');
    await waitFor(() => confirmed(paid.signature) && noise.every(confirmed), 30_000, 'the burst confirmed');
    blind = false;

    // The detector reads the burst: the newest transfer shows up in the ledger first...
    const newest = noise.at(-1)!;
    await waitFor(async () => ((await api.get('/v1/payments?limit=100')).body.payments as any[]).some((p) => p.txSignature === newest), 20_000, 'the newest transfer recorded');
    // ...and the payment, 130 signatures older, is found too (on main it never was) and drives the intent.
    const inLedger = async () => {
      for (let page = await api.get('/v1/payments?limit=100'); ; ) {
        const list = page.body.payments as any[];
        if (list.some((p) => p.txSignature === paid.signature)) return true;
        if (!page.body.hasMore) return false;
        page = await api.get(`/v1/payments?limit=100&starting_after=${list.at(-1).id}`);
      }
    };
    await waitFor(inLedger, 10_000, 'the payment (the oldest transfer of the burst) recorded');
    const done = await waitFor(intentIn(api, id, 'finalized'), 20_000, 'the intent paid by the oldest transfer');
    expect(done.txSignature).toBe(paid.signature);
    expect(done.fulfiller).toBe(payer.address);
  }, 120_000);
});
