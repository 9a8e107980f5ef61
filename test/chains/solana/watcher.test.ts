// The shared Solana watcher against a local LiteSVM cluster: on-chain failure, dropped transactions,
// reorgs, rebroadcasts, batching, and RPC trouble (failover, all upstreams down).
import { generateKeyPairSigner } from '@solana/kit';
import { describe, expect, test } from 'vitest';
import { solanaAdapter } from '../../../src/chains/solana/adapter';
import type { ChainIntent, Network, VerifiedSubmission, Watcher } from '../../../src/chains/types';
import type { RpcPool } from '../../../src/rpc/types';
import { DEVNET_USDC_MINT, startLocalSolana, type LocalSolana } from '../../support/solana/local-solana';
import { localNetwork, localPool } from '../../support/solana/network';
import { signMessageBlob } from '../../support/solana/wallet';
import { collector, intentFor, parties, rejection, useLocalCluster, waitUntil } from './helpers';

let sol: LocalSolana;
let network: Network;
let rpc: RpcPool;
const { watcher } = useLocalCluster({ blockhashValidBlocks: 40 }, (c) => ({ sol, network, rpc } = c));

function follow(w: Watcher, intent: ChainIntent, v: VerifiedSubmission, stage: 'pending' | 'confirmed' = 'pending') {
  w.watch({ intentId: intent.id, chain: intent.chain, txSignature: v.txSignature, signedTransaction: v.signedTransaction, watchData: v.watchData, stage, intent });
}

/**
 * Build, sign and verify for `signer`, leaving the cluster's clock stopped: no block comes before
 * the test broadcasts (a loaded machine would otherwise spend the hash's 40 blocks, 800 ms of 20 ms
 * slots, on the way and the node would refuse it as Blockhash not found). The test starts it again.
 */
async function signedFor(intent: ChainIntent, signer: Awaited<ReturnType<typeof parties>>['fulfiller']) {
  sol.chain.pause();
  const built = await solanaAdapter.build(network, rpc, intent, signer.address);
  const v = await solanaAdapter.verifySubmission(network, rpc, intent, await signMessageBlob(built.transaction.blob, [signer]), built.buildData);
  return { built, v };
}

describe('on-chain outcomes', () => {
  test('the transfer fails on chain (tokens gone between preflight and landing) -> failed insufficient_balance', async () => {
    const { fulfiller, requestor } = await parties(sol, 3_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 3_000_000n);
    const { v } = await signedFor(intent, fulfiller);
    const obs = collector();
    const w = watcher(obs.report);
    sol.chain.pause();
    await solanaAdapter.broadcast(network, rpc, v); // preflight passes: the tokens are still there
    follow(w, intent, v);
    await sol.setTokenBalance(DEVNET_USDC_MINT, fulfiller.address, 1n);
    sol.chain.resume();

    await waitUntil('failed', () => obs.types(intent.id).includes('failed'));
    const failed = obs.seen.find((o) => o.type === 'failed')!;
    expect(failed).toMatchObject({ type: 'failed', intentId: intent.id, txSignature: v.txSignature, reason: 'insufficient_balance' });
    expect(obs.types(intent.id)).toEqual(['failed']);
    expect(sol.chain.landedTx(v.txSignature)?.err).toEqual({ InstructionError: [3, { Custom: 1 }] });
    // A failed transaction is atomic: the requestor's account creation is rolled back too.
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor.address)).toBeNull();
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, fulfiller.address)).toBe(1n);
  });

  test('a dropped transaction is reported only after its blockhash expired at finalized height; a re-signed one confirms', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_500_000n);
    const { v } = await signedFor(intent, fulfiller);
    const lastValid = v.watchData.lastValidBlockHeight as number;
    sol.setDropTransactions(true);
    sol.resetCounters();
    const finalizedAtDrop: number[] = [];
    const obs = collector();
    const w = watcher((o) => {
      if (o.type === 'dropped') finalizedAtDrop.push(sol.chain.heightAt('finalized'));
      obs.report(o);
    });
    await solanaAdapter.broadcast(network, rpc, v);
    sol.chain.resume();
    follow(w, intent, v);

    await waitUntil('dropped', () => obs.types(intent.id).includes('dropped'));
    expect(obs.types(intent.id)).toEqual(['dropped']);
    expect(finalizedAtDrop[0]).toBeGreaterThan(lastValid);
    // It kept resending the same bytes while pending (1 broadcast + rebroadcasts), and looked in the history.
    expect(sol.chain.dropped.filter((s) => s === v.txSignature).length).toBeGreaterThan(1);
    expect(sol.counters.calls.getBlockHeight).toBeGreaterThan(0);
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor.address)).toBeNull();

    // The fulfiller builds and signs again; this one lands.
    sol.setDropTransactions(false);
    const again = await signedFor(intent, fulfiller);
    expect(again.v.txSignature).not.toBe(v.txSignature);
    await solanaAdapter.broadcast(network, rpc, again.v);
    sol.chain.resume();
    follow(w, intent, again.v);
    await waitUntil('finalized', () => obs.types(intent.id).includes('finalized'));
    expect(obs.types(intent.id)).toEqual(['dropped', 'confirmed', 'finalized']);
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor.address)).toBe(1_500_000n);
  });

  test('a slow transaction is rebroadcast and never called dropped while its blockhash is valid', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const { v } = await signedFor(intent, fulfiller);
    sol.resetCounters();
    sol.setDropTransactions(true);
    sol.chain.pause(); // no blocks: the blockhash cannot expire while the copies are being lost
    const obs = collector();
    const w = watcher(obs.report, rpc, { ...network, pollIntervalMs: 15, rebroadcastIntervalMs: 30 });
    await solanaAdapter.broadcast(network, rpc, v);
    follow(w, intent, v);
    const copies = () => sol.chain.dropped.filter((s) => s === v.txSignature).length;
    await waitUntil('three lost copies', () => copies() >= 3);
    expect(obs.seen).toEqual([]);
    sol.setDropTransactions(false);
    await waitUntil('a copy accepted', () => sol.counters.calls.sendTransaction! > copies());
    sol.chain.resume();
    await waitUntil('finalized', () => obs.types(intent.id).includes('finalized'));
    expect(obs.types(intent.id)).toEqual(['confirmed', 'finalized']);
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor.address)).toBe(1_000_000n);
  });

  test('a confirmed transaction that disappears is reported reorged', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const { v } = await signedFor(intent, fulfiller);
    const obs = collector();
    const w = watcher(obs.report);
    sol.chain.pause();
    await solanaAdapter.broadcast(network, rpc, v);
    follow(w, intent, v);
    for (let i = 0; i < 3; i++) sol.chain.tick(); // landed and confirmed (lag 2), not finalized (lag 6)
    await waitUntil('confirmed', () => obs.types(intent.id).includes('confirmed'));
    sol.chain.forgetTransaction(v.txSignature);
    await waitUntil('reorged', () => obs.types(intent.id).includes('reorged'));
    expect(obs.types(intent.id)).toEqual(['confirmed', 'reorged']);
  });

  test('confirmed by detection before this watcher saw it land, then forked out: reported reorged', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const { v } = await signedFor(intent, fulfiller);
    const obs = collector();
    const w = watcher(obs.report);
    sol.chain.pause();
    await solanaAdapter.broadcast(network, rpc, v);
    follow(w, intent, v); // pending: the watcher reads it as not landed yet
    // In one synchronous step (no watcher read can come between): it lands and confirms, the
    // detector's verdict moves the row to confirmed with the slot it landed at, and a fork
    // discards it. This watcher never saw its status.
    for (let i = 0; i < 3; i++) sol.chain.tick();
    const slot = sol.chain.landedTx(v.txSignature)!.slot;
    w.watch({
      intentId: intent.id, chain: intent.chain, txSignature: v.txSignature, signedTransaction: v.signedTransaction,
      watchData: { ...v.watchData, slot }, stage: 'confirmed', intent,
    });
    sol.chain.forgetTransaction(v.txSignature);
    await waitUntil('reorged', () => obs.types(intent.id).includes('reorged'));
    expect(obs.types(intent.id)).toEqual(['reorged']);
  });

  test('a watch item re-added at stage confirmed (rehydration) reports only finalized', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const { v } = await signedFor(intent, fulfiller);
    await solanaAdapter.broadcast(network, rpc, v);
    sol.chain.resume();
    await waitUntil('confirmed on chain', () => sol.chain.landedTx(v.txSignature) !== undefined);
    const obs = collector();
    follow(watcher(obs.report), intent, v, 'confirmed');
    await waitUntil('finalized', () => obs.types(intent.id).includes('finalized'));
    expect(obs.types(intent.id)).toEqual(['finalized']);
  });
});

describe('polling', () => {
  test('one shared loop: 300 signatures are looked up in batches of at most 256', async () => {
    const batches: number[] = [];
    const spy: RpcPool = {
      chain: rpc.chain,
      request: (p) => rpc.request(p),
      status: () => rpc.status(),
      pinnedTo: null,
      pin: () => spy,
      call: (method, params) => {
        if (method === 'getSignatureStatuses') batches.push((params![0] as string[]).length);
        return rpc.call(method, params);
      },
    };
    const obs = collector();
    const w = watcher(obs.report, spy, { ...network, rebroadcastIntervalMs: 60_000 });
    const { fulfiller, requestor } = await parties(sol, 1n);
    for (let i = 0; i < 300; i++) {
      const sig = (await generateKeyPairSigner()).address; // any base58 string the chain never saw
      const intent = intentFor(requestor.address, fulfiller.address, 1n);
      w.watch({ intentId: intent.id, chain: intent.chain, txSignature: `${sig}${sig}`.slice(0, 88), signedTransaction: 'AA==', watchData: { lastValidBlockHeight: 1e9 }, stage: 'pending', intent });
    }
    await waitUntil('two polls', () => batches.length >= 4);
    await w.stop();
    expect(Math.max(...batches)).toBe(256);
    expect(batches.slice(0, 2).reduce((a, b) => a + b, 0)).toBe(300);
    expect(obs.seen).toEqual([]); // unknown but not expired: nothing to report
  });

  test('survives RPC errors: keeps polling and reports once the node answers again', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const { v } = await signedFor(intent, fulfiller);
    const logged: string[] = [];
    const obs = collector();
    const w = watcher(obs.report);
    // The watcher's default logger (log.ts) writes JSON lines to stderr.
    const origWrite = process.stderr.write;
    process.stderr.write = ((line: string) => logged.push(String(line)) > 0) as typeof process.stderr.write;
    try {
      await solanaAdapter.broadcast(network, rpc, v);
      sol.chain.resume();
      await sol.setHealth('http500');
      follow(w, intent, v);
      await waitUntil('errors logged', () => logged.length >= 2);
      expect(obs.seen).toEqual([]);
      await sol.setHealth('ok');
      await waitUntil('finalized', () => obs.types(intent.id).includes('finalized'), 20_000);
    } finally {
      process.stderr.write = origWrite;
    }
    expect(JSON.parse(logged[0]!)).toMatchObject({ level: 'warn', msg: expect.stringMatching(/^solana watcher: /), chain: network.chain });
    expect(obs.types(intent.id)).toEqual(['confirmed', 'finalized']);
  });

  test('stop() ends the loop: no more calls afterwards', async () => {
    const obs = collector();
    const w = watcher(obs.report);
    const { fulfiller, requestor } = await parties(sol, 1n);
    const intent = intentFor(requestor.address, fulfiller.address, 1n);
    w.watch({ intentId: intent.id, chain: intent.chain, txSignature: '1'.repeat(64), signedTransaction: 'AA==', watchData: { lastValidBlockHeight: 1e9 }, stage: 'pending', intent });
    await waitUntil('a poll', () => (sol.counters.calls.getSignatureStatuses ?? 0) > 0);
    await w.stop();
    const after = sol.counters.calls.getSignatureStatuses ?? 0;
    await Bun.sleep(network.pollIntervalMs * 4);
    expect(sol.counters.calls.getSignatureStatuses ?? 0).toBe(after);
  });
});

describe('upstreams', () => {
  test('failover: a dead first upstream is skipped and the live one pays', async () => {
    const dead = await startLocalSolana({ paused: true });
    await dead.setHealth('down');
    const pool = localPool([dead.url, sol.url]);
    try {
      const net = localNetwork([dead.url, sol.url]);
      const { fulfiller, requestor } = await parties(sol, 5_000_000n);
      const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
      sol.chain.pause(); // as in signedFor: no block between build and broadcast
      const built = await solanaAdapter.build(net, pool, intent, fulfiller.address);
      const v = await solanaAdapter.verifySubmission(net, pool, intent, await signMessageBlob(built.transaction.blob, [fulfiller]), built.buildData);
      await solanaAdapter.broadcast(net, pool, v);
      sol.chain.resume();
      await waitUntil('landed', () => sol.chain.landedTx(v.txSignature) !== undefined);
      expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor.address)).toBe(1_000_000n);
    } finally {
      await dead.stop();
    }
  });

  test('all upstreams down -> rpc.unavailable with retry_after from build and broadcast, nothing sent', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const { v } = await signedFor(intent, fulfiller);
    const other = await startLocalSolana({ paused: true });
    await other.setHealth('http500');
    const pool = localPool([sol.url, other.url], { retryAfterSeconds: 7 });
    await sol.setHealth('down');
    try {
      const b = await rejection(solanaAdapter.build(network, pool, intent, fulfiller.address));
      expect(b.code).toBe('rpc.unavailable');
      expect(b.details.retry_after).toBe(7);
      const s = await rejection(solanaAdapter.broadcast(network, pool, v));
      expect(s.code).toBe('rpc.unavailable');
    } finally {
      await sol.setHealth('ok');
      await other.stop();
    }
    expect(sol.chain.landedTx(v.txSignature)).toBeUndefined();
  });
});
