// Contract 14 on the Solana watcher, against the local LiteSVM cluster served by several RPC
// nodes with their own view of it: a node whose history starts after the submit never declares
// "dropped"; a node behind the slot where a transaction was seen is never read as a reorg;
// "failed" only at finalized; a transfer whose balance changes do not pay is never confirmed.
import { describe, expect, test } from 'vitest';
import { solanaAdapter } from '../../../src/chains/solana/adapter';
import type { ChainIntent, VerifiedSubmission, Watcher } from '../../../src/chains/types';
import type { RpcPool } from '../../../src/rpc/types';
import { DEVNET_USDC_MINT, type LocalSolana } from '../../support/solana/local-solana';
import { localPool } from '../../support/solana/network';
import { sendRaw, walletTransfer } from '../../support/solana/transfer';
import { signMessageBlob } from '../../support/solana/wallet';
import { collector, intentFor, parties, useLocalCluster, waitUntil } from './helpers';
import type { Network } from '../../../src/chains/types';
import { generateKeyPairSigner } from '@solana/kit';

let sol: LocalSolana;
let network: Network;
let rpc: RpcPool;
const STATUS_CACHE_SLOTS = 20;
const { watcher } = useLocalCluster({ blockhashValidBlocks: 40, statusCacheSlots: STATUS_CACHE_SLOTS }, (c) => ({ sol, network, rpc } = c));

function follow(w: Watcher, intent: ChainIntent, v: Pick<VerifiedSubmission, 'txSignature' | 'signedTransaction' | 'watchData'>) {
  w.watch({ intentId: intent.id, chain: intent.chain, txSignature: v.txSignature, signedTransaction: v.signedTransaction, watchData: v.watchData, stage: 'pending', intent });
}

/**
 * Build, sign and verify for `signer`, leaving the cluster's clock stopped: no block comes before
 * the test broadcasts (a loaded machine would otherwise spend the hash's 40 blocks, 800 ms of 20 ms
 * slots, on the way and the node would refuse it as Blockhash not found). The test starts it again.
 */
async function signedFor(intent: ChainIntent, signer: Awaited<ReturnType<typeof parties>>['fulfiller']) {
  sol.chain.pause();
  const built = await solanaAdapter.build(network, rpc, intent, signer.address);
  return solanaAdapter.verifySubmission(network, rpc, intent, await signMessageBlob(built.transaction.blob, [signer]), built.buildData);
}

/** Pools with quick failover over the given node URLs. */
const poolOf = (urls: string[]) => localPool(urls);

describe('dropped needs a node whose history reaches back to the submit', () => {
  test('landed and finalized while nobody watched; the first node restarted from a snapshot (no history): no drop there, the next node finds it', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_250_000n);
    const v = await signedFor(intent, fulfiller);
    await solanaAdapter.broadcast(network, rpc, v); // then PayForge is down
    sol.chain.resume();
    await waitUntil('landed', () => sol.chain.landedTx(v.txSignature) !== undefined);
    const landed = sol.chain.landedTx(v.txSignature)!;
    const lastValid = v.watchData.lastValidBlockHeight as number;
    // Back up once it is finalized, gone from every status cache and its blockhash dead at finalized.
    await waitUntil('expired and out of the status cache', () => sol.chain.heightAt('finalized') > lastValid && sol.chain.slot - landed.slot > STATUS_CACHE_SLOTS + 2);
    const snapshot = await sol.addNode({ firstAvailableSlot: sol.chain.slot });

    // Only that node: it cannot tell "never landed" from "landed before my history": no verdict.
    const alone = collector();
    follow(watcher(alone.report, poolOf([snapshot.url])), intent, v);
    await waitUntil('several ticks on the node without history', () => (snapshot.counters.calls.getSignatureStatuses ?? 0) >= 6);
    expect(alone.seen).toEqual([]);

    // With a node that has the history behind it: the decision moves there, whole, and pays.
    const obs = collector();
    const asked = snapshot.counters.calls.getSignatureStatuses ?? 0;
    follow(watcher(obs.report, poolOf([snapshot.url, sol.url])), intent, v);
    await waitUntil('finalized', () => obs.types(intent.id).includes('finalized'));
    expect(obs.types(intent.id)).toEqual(['confirmed', 'finalized']);
    expect(snapshot.counters.calls.getSignatureStatuses ?? 0).toBeGreaterThan(asked); // asked first, had no say
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor.address)).toBe(1_250_000n);
  });

  test('a transaction that never landed is dropped by a node whose history covers it, after its blockhash died at finalized', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const v = await signedFor(intent, fulfiller);
    sol.setDropTransactions(true);
    const obs = collector();
    const finalizedAtDrop: number[] = [];
    const w = watcher((o) => {
      if (o.type === 'dropped') finalizedAtDrop.push(sol.chain.heightAt('finalized'));
      obs.report(o);
    });
    await solanaAdapter.broadcast(network, rpc, v);
    sol.chain.resume();
    follow(w, intent, v);
    await waitUntil('dropped', () => obs.types(intent.id).includes('dropped'));
    expect(obs.types(intent.id)).toEqual(['dropped']);
    expect(finalizedAtDrop[0]).toBeGreaterThan(v.watchData.lastValidBlockHeight as number);
  });
});

describe('a node that is behind is never read as a reorg', () => {
  test('after confirmed, failover to a node 8 blocks behind the landing: no extra events; finalized once the first is back', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const v = await signedFor(intent, fulfiller);
    const behind = await sol.addNode({ lagBlocks: 8 });
    const pool = poolOf([sol.url, behind.url]);
    const obs = collector();
    const w = watcher(obs.report, pool);
    sol.chain.pause();
    await solanaAdapter.broadcast(network, rpc, v);
    follow(w, intent, v);
    for (let i = 0; i < 3; i++) sol.chain.tick(); // landed and confirmed (lag 2), not finalized (lag 6)
    await waitUntil('confirmed', () => obs.types(intent.id).includes('confirmed'));
    expect(sol.chain.landedTx(v.txSignature)!.height).toBeGreaterThan(sol.chain.heightAt('processed', 8));

    // The first node goes away: every decision is read from the node that is behind.
    await sol.setHealth('down');
    const seen = behind.counters.calls.getSignatureStatuses ?? 0;
    await waitUntil('six ticks on the lagging node', () => (behind.counters.calls.getSignatureStatuses ?? 0) >= seen + 6);
    expect(obs.types(intent.id)).toEqual(['confirmed']);

    await sol.setHealth('ok');
    sol.chain.resume();
    await waitUntil('finalized', () => obs.types(intent.id).includes('finalized'));
    expect(obs.types(intent.id)).toEqual(['confirmed', 'finalized']);
  });
});

describe('failed only at finalized', () => {
  test('a transfer that failed on chain is pending while its block is only confirmed; failed once finalized', async () => {
    const { fulfiller, requestor } = await parties(sol, 3_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 3_000_000n);
    const v = await signedFor(intent, fulfiller);
    const obs = collector();
    const w = watcher(obs.report);
    sol.chain.pause();
    await solanaAdapter.broadcast(network, rpc, v); // preflight passes: the tokens are still there
    follow(w, intent, v);
    await sol.setTokenBalance(DEVNET_USDC_MINT, fulfiller.address, 1n);
    for (let i = 0; i < 3; i++) sol.chain.tick(); // landed (failed) and confirmed, not finalized
    expect(sol.chain.landedTx(v.txSignature)?.err).toEqual({ InstructionError: [3, { Custom: 1 }] });
    const polls = sol.counters.calls.getSignatureStatuses ?? 0;
    await waitUntil('three polls', () => (sol.counters.calls.getSignatureStatuses ?? 0) >= polls + 3);
    expect(obs.seen).toEqual([]);

    for (let i = 0; i < 6; i++) sol.chain.tick();
    expect(sol.chain.status(v.txSignature, false)?.confirmationStatus).toBe('finalized');
    await waitUntil('failed', () => obs.types(intent.id).includes('failed'));
    expect(obs.seen).toEqual([expect.objectContaining({ type: 'failed', reason: 'insufficient_balance', txSignature: v.txSignature })]);
  });
});

describe('paid means money moved', () => {
  test("a delegate's self-transfer on the requestor's own account lands, moves nothing, and is never confirmed (failed once final)", async () => {
    const requestor = await generateKeyPairSigner();
    const delegate = await generateKeyPairSigner();
    sol.airdrop(delegate.address, 1_000_000_000n);
    const account = await sol.setTokenBalance(DEVNET_USDC_MINT, requestor.address, 5_000_000n, { address: delegate.address, amount: 5_000_000n });
    const intent = intentFor(requestor.address, delegate.address, 2_000_000n);
    const t = await walletTransfer(sol, { signer: delegate, source: account, destination: account, mint: DEVNET_USDC_MINT, amount: 2_000_000n });
    sendRaw(sol, t.wire); // straight to the chain: it never went through submit's checks
    const obs = collector();
    follow(watcher(obs.report), intent, {
      txSignature: t.signature,
      signedTransaction: t.wire,
      watchData: { blockhash: t.blockhash, lastValidBlockHeight: t.lastValidBlockHeight, hashSlot: t.slot, historyFromSlot: t.slot },
    });
    await waitUntil('a final verdict', () => obs.types(intent.id).some((t) => t === 'failed' || t === 'finalized'));
    expect(sol.chain.landedTx(t.signature)?.err).toBeNull(); // it succeeded on chain
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor.address)).toBe(5_000_000n); // and moved nothing
    expect(obs.seen).toEqual([expect.objectContaining({ type: 'failed', reason: 'program_error', intentId: intent.id })]);
  });
});
