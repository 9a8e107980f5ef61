// The Solana detector reads a receiver's signatures page by page back to its cursor (contract 11:
// nothing that arrives is lost from view). When one poll cannot reach the cursor (its page limit,
// 100 pages of 100 in production: a restart after downtime on a busy address), the next poll goes
// on from the oldest signature read, not from the newest again: from the newest it never got past
// the same pages, so the older transfers (the payment among them) were never read, every poll
// re-read the same ones and the cursor never moved. Real local Solana (LiteSVM, real SPL Token);
// the detector's store side is a recording source (what it reports, its cursors).
import { generateKeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSolanaDetector } from '../../../src/chains/solana/detect';
import type { DetectionSource, Detector, FoundTransfer } from '../../../src/chains/types';
import { waitFor } from '../../support/api';
import { DEVNET_USDC_MINT, startLocalSolana, type LocalSolana } from '../../support/solana/local-solana';
import { localNetwork, localPool } from '../../support/solana/network';
import { sendRaw, walletTransfer } from '../../support/solana/transfer';

const NOISE = 130;
let sol: LocalSolana;
let detector: Detector | null = null;

beforeAll(async () => {
  sol = await startLocalSolana({ slotMs: 20 });
  sol.createMint({ address: DEVNET_USDC_MINT, decimals: 6 });
}, 60_000);
afterAll(async () => {
  await detector?.stop();
  await sol?.stop();
});

it('a poll that cannot reach the cursor leaves the next one to go on from the oldest signature it read: the oldest transfer is found, then the cursor moves to the newest', async () => {
  const [payer, other] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  for (const w of [payer, other]) {
    sol.airdrop(w.address, 10_000_000_000n);
    await sol.setTokenBalance(DEVNET_USDC_MINT, w.address, 1_000_000_000n);
  }
  const requestor = (await generateKeyPairSigner()).address;
  const ata = await sol.setTokenBalance(DEVNET_USDC_MINT, requestor, 0n);
  const since = Date.now() - 60_000;
  // The payment first, then 130 newer transfers to the same account: two pages of 100.
  const paid = await walletTransfer(sol, { signer: payer, source: await sol.ata(DEVNET_USDC_MINT, payer.address), destination: ata, mint: DEVNET_USDC_MINT, amount: 4_200_000n });
  const sigs = [sendRaw(sol, paid.wire)];
  const otherAta = await sol.ata(DEVNET_USDC_MINT, other.address);
  for (let k = 0; k < NOISE; k++) {
    const t = await walletTransfer(sol, { signer: other, source: otherAta, destination: ata, mint: DEVNET_USDC_MINT, amount: BigInt(k + 1) });
    sigs.push(sendRaw(sol, t.wire));
  }
  const confirmed = (sig: string) => ['confirmed', 'finalized'].includes(sol.chain.status(sig, false)?.confirmationStatus ?? '');
  await waitFor(() => sigs.every(confirmed), 30_000, 'the transfers confirmed');

  const reported = new Map<string, FoundTransfer>();
  const cursors = new Map<string, string>();
  const source: DetectionSource = {
    receivers: async () => [{ requestor, tokenAddress: DEVNET_USDC_MINT, since }],
    references: async () => [],
    unfinalized: async () => [],
    getCursor: async (key) => cursors.get(key) ?? null,
    setCursor: async (key, value) => void cursors.set(key, value),
    report: async (t) => void reported.set(t.txSignature, t),
    log: () => {},
  };
  // One page per poll: the 131 signatures need two polls to reach the start of the watched period.
  detector = createSolanaDetector(localNetwork([sol.url]), localPool([sol.url]), source, { maxPages: 1 });
  await waitFor(() => reported.has(paid.signature), 15_000, 'the oldest transfer (the payment) reported');
  expect(reported.get(paid.signature)).toMatchObject({ from: payer.address, to: requestor, amountBaseUnits: 4_200_000n });
  // Every transfer once read, and the cursor at the newest once the whole range was read.
  await waitFor(() => cursors.get(`sig:${ata}`) === sigs.at(-1), 10_000, 'the cursor at the newest signature');
  expect(sigs.filter((s) => !reported.has(s))).toEqual([]);

  // From there on, a new transfer is read from the cursor as before.
  const next = await walletTransfer(sol, { signer: payer, source: await sol.ata(DEVNET_USDC_MINT, payer.address), destination: ata, mint: DEVNET_USDC_MINT, amount: 777n });
  const nextSig = sendRaw(sol, next.wire);
  await waitFor(() => reported.has(nextSig) && cursors.get(`sig:${ata}`) === nextSig, 15_000, 'the next transfer read from the cursor');
}, 120_000);
