// The EVM watcher on anvil (Base Sepolia): confirmed, finalized, revert, rebroadcast, a nonce taken
// by another transaction (dropped) or by a repriced copy (paid), a reorg, and batching.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { evmAdapter } from '../../../src/chains/evm/adapter';
import type { ChainIntent, Network, VerifiedSubmission, Watcher } from '../../../src/chains/types';
import type { RpcPool } from '../../../src/rpc/types';
import type { AppError } from '../../../src/domain/errors';
import { DEV_KEYS, receiptOf, startAnvil, type Anvil } from '../../support/evm/anvil';
import { baseSepolia, countingPool, intentFor, poolFor, signBlob, type CountingPool } from '../../support/evm/chain';
import { observations, type Observations } from '../../support/evm/observe';
import { waitFor } from '../../support/api';
import { deployToken, ownerClient, tokenAbi } from '../../support/evm/token';

let anvil: Anvil;
let usdc: Hex;
let network: Network;
let rpc: CountingPool;
let obs: Observations;
let watcher: Watcher;
const payer = privateKeyToAccount(DEV_KEYS[3]);
const requestor = privateKeyToAccount(generatePrivateKey()).address;

const balanceOf = (who: string) =>
  ownerClient(anvil).readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who as Hex] });

/** The fulfiller's side of one payment: build, sign the blob, verify; broadcast unless told not to. */
async function pay(amount: bigint, o: { broadcast?: boolean; account?: PrivateKeyAccount } = {}) {
  const account = o.account ?? payer;
  const intent = intentFor(network, 'USDC', { requestor, fulfiller: account.address, amount });
  const built = await evmAdapter.build(network, rpc, intent, account.address);
  const signed = await signBlob(account, built.transaction.blob);
  const v = await evmAdapter.verifySubmission(network, rpc, intent, signed, built.buildData);
  if (o.broadcast !== false) await evmAdapter.broadcast(network, rpc, v);
  return { intent, v, blob: built.transaction.blob };
}

function follow(intent: ChainIntent, v: VerifiedSubmission, stage: 'pending' | 'confirmed' = 'pending') {
  watcher.watch({
    intentId: intent.id, chain: network.chain, txSignature: v.txSignature, signedTransaction: v.signedTransaction,
    watchData: v.watchData, stage, intent,
  });
}

/** A different transaction from `account` with `nonce` (a 1-unit token transfer to itself), higher fees. */
async function takeNonce(account: PrivateKeyAccount, nonce: number) {
  return account.signTransaction({
    type: 'eip1559', chainId: 84532, nonce, to: usdc, gas: 100_000n,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [account.address, 1n] }),
    maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 10_000_000_000n,
  });
}

beforeAll(async () => {
  anvil = await startAnvil('base');
  usdc = await deployToken(anvil, { [payer.address]: 10_000_000_000n });
  network = baseSepolia([anvil.url], usdc);
  rpc = countingPool(poolFor(network));
});

/** Let the watcher read the chain as it is now for a few ticks (each tick pins one node). */
async function ticks(n = 3) {
  const seen = rpc.counted.pins;
  const deadline = Date.now() + 10_000;
  while (rpc.counted.pins < seen + n) {
    if (Date.now() > deadline) throw new Error(`the watcher did not tick ${n} times`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
afterAll(async () => {
  await anvil?.stop();
});
afterEach(async () => {
  await watcher?.stop();
  await anvil.rpc('evm_setAutomine', [true]);
});
const start = (n: Network = network, pool: RpcPool = rpc) => {
  obs = observations();
  watcher = evmAdapter.createWatcher(n, pool, obs.report);
};

describe('EVM watcher', () => {
  it('reports confirmed at the configured depth, then finalized by the finalized tag', async () => {
    start(baseSepolia([anvil.url], usdc, { confirmations: 2 }));
    const before = await balanceOf(requestor);
    const { intent, v } = await pay(2_000_000n);
    follow(intent, v);
    // Mined in one block (depth 1) with confirmations = 2: nothing yet, however many ticks.
    await ticks(3);
    expect(obs.of(intent.id)).toEqual([]);
    await anvil.rpc('evm_mine');
    const confirmed = await obs.waitFor({ intentId: intent.id, type: 'confirmed' });
    // The receipt's block goes to the row with the verdict: a restarted watcher tells a reorg by it.
    const block = Number((await receiptOf(anvil, v.txSignature)).blockNumber);
    expect(confirmed).toEqual({ type: 'confirmed', intentId: intent.id, txSignature: v.txSignature, follows: v.txSignature, watchData: { seenBlock: block } });
    expect(obs.of(intent.id)).toEqual(['confirmed']);
    // finalized trails the head by two blocks with --slots-in-an-epoch 1.
    await anvil.rpc('anvil_mine', ['0x2']);
    await obs.waitFor({ intentId: intent.id, type: 'finalized', txSignature: v.txSignature });
    expect(obs.of(intent.id)).toEqual(['confirmed', 'finalized']);
    expect((await balanceOf(requestor)) - before).toBe(2_000_000n);
  });

  it('picks up a confirmed intent at rehydration and reports only finality', async () => {
    start();
    const { intent, v } = await pay(1n);
    follow(intent, v, 'confirmed');
    await ticks(3);
    expect(obs.of(intent.id)).toEqual([]);
    await anvil.rpc('anvil_mine', ['0x3']);
    await obs.waitFor({ intentId: intent.id, type: 'finalized' });
    expect(obs.of(intent.id)).toEqual(['finalized']);
  });

  it('reports a reverted receipt as failed (revert) only once its block is at or below the finalized tag', async () => {
    start();
    const { intent, v } = await pay(5n, { broadcast: false });
    // Signed and verified, then the token blocks the payer (as USDC's blacklist can) before it lands.
    const owner = ownerClient(anvil);
    const block = (on: boolean) =>
      owner.writeContract({ address: usdc, abi: tokenAbi(), functionName: 'setBlocked', args: [payer.address, on] })
        .then((hash) => owner.waitForTransactionReceipt({ hash }));
    await block(true);
    try {
      await evmAdapter.broadcast(network, rpc, v); // gas is in the signed bytes: nothing re-estimates
      follow(intent, v);
      // Mined and reverted, but a reorg could still re-include it: nothing yet.
      await ticks();
      expect(obs.of(intent.id)).toEqual([]);
      await anvil.rpc('anvil_mine', ['0x2']);
      const f = await obs.waitFor({ intentId: intent.id, type: 'failed' });
      expect(f).toMatchObject({ reason: 'revert', txSignature: v.txSignature });
      expect(obs.of(intent.id)).toEqual(['failed']);
    } finally {
      await block(false);
    }
  });

  it('rebroadcasts the same bytes while the nonce is unused', async () => {
    start();
    await anvil.rpc('evm_setAutomine', [false]);
    const { intent, v } = await pay(4n);
    follow(intent, v);
    // The node forgets it (as a pruned mempool would); only the watcher's rebroadcast brings it back.
    await anvil.rpc('anvil_dropTransaction', [v.txSignature]);
    expect(await anvil.rpc('eth_getTransactionByHash', [v.txSignature])).toBeNull();
    const deadline = Date.now() + 5_000;
    while (!(await anvil.rpc('eth_getTransactionByHash', [v.txSignature]))) {
      if (Date.now() > deadline) throw new Error('never rebroadcast');
      await new Promise((r) => setTimeout(r, 50));
    }
    await anvil.rpc('evm_mine');
    await obs.waitFor({ intentId: intent.id, type: 'confirmed', txSignature: v.txSignature });
  });

  it('reports dropped once the transaction that took the nonce is final; a re-signed payment then confirms', async () => {
    start();
    await anvil.rpc('evm_setAutomine', [false]);
    const { intent, v } = await pay(6n);
    follow(intent, v);
    // The payer's wallet sends something else with the same nonce and higher fees: it replaces ours.
    await anvil.rpc('eth_sendRawTransaction', [await takeNonce(payer, Number(v.watchData.nonce))]);
    await anvil.rpc('evm_mine');
    // The taker is one block deep: a reorg can still land ours, so we keep resending, nothing else.
    const sentBefore = rpc.counted.methods.length;
    await ticks(5);
    expect(obs.of(intent.id)).toEqual([]);
    expect(rpc.counted.methods.slice(sentBefore)).toContain('eth_sendRawTransaction');
    await anvil.rpc('anvil_mine', ['0x2']);
    expect(await obs.waitFor({ intentId: intent.id, type: 'dropped' })).toEqual({
      type: 'dropped', intentId: intent.id, txSignature: v.txSignature, follows: v.txSignature,
    });
    watcher.unwatch(intent.id);

    // retry_required: the fulfiller re-signs a fresh build (next nonce) for the same intent.
    await anvil.rpc('evm_setAutomine', [true]);
    const built = await evmAdapter.build(network, rpc, intent, payer.address);
    expect(built.buildData.nonce).toBe(Number(v.watchData.nonce) + 1);
    const v2 = await evmAdapter.verifySubmission(network, rpc, intent, await signBlob(payer, built.transaction.blob), built.buildData);
    await evmAdapter.broadcast(network, rpc, v2);
    follow(intent, v2);
    await obs.waitFor({ intentId: intent.id, type: 'confirmed', txSignature: v2.txSignature });
    expect(obs.of(intent.id)).toEqual(['dropped', 'confirmed']);
  });

  it('counts a repriced copy of the same transfer as paid, under the copy’s hash', async () => {
    start();
    await anvil.rpc('evm_setAutomine', [false]);
    const { intent, v, blob } = await pay(7n);
    follow(intent, v);
    // The wallet speeds the payment up: same transfer and nonce, doubled fees, new hash.
    const copy = await signBlob(payer, blob, { maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 10_000_000_000n });
    const copyHash = await anvil.rpc<string>('eth_sendRawTransaction', [`0x${Buffer.from(copy, 'base64').toString('hex')}`]);
    expect(copyHash).not.toBe(v.txSignature);
    await anvil.rpc('evm_mine');
    // Under the copy's hash, about the transaction followed (the row's): a replacement of it.
    await obs.waitFor({ intentId: intent.id, type: 'confirmed', txSignature: copyHash, follows: v.txSignature });
    await anvil.rpc('anvil_mine', ['0x2']);
    await obs.waitFor({ intentId: intent.id, type: 'finalized', txSignature: copyHash });
    expect(obs.of(intent.id)).toEqual(['confirmed', 'finalized']);
  });

  it('finds the nonce taker blocks back after a restart, and tells copy from stranger', async () => {
    // Two intents whose nonces were both used while nobody watched; the watcher starts later.
    await anvil.rpc('evm_setAutomine', [false]);
    const a = await pay(8n);
    await anvil.rpc('eth_sendRawTransaction', [await takeNonce(payer, Number(a.v.watchData.nonce))]);
    await anvil.rpc('evm_mine');
    await anvil.rpc('anvil_mine', ['0x5']);
    const b = await pay(9n);
    const copy = await signBlob(payer, b.blob, { maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 10_000_000_000n });
    const copyHash = await anvil.rpc<string>('eth_sendRawTransaction', [`0x${Buffer.from(copy, 'base64').toString('hex')}`]);
    await anvil.rpc('evm_mine');
    await anvil.rpc('anvil_mine', ['0x4']);
    start();
    follow(a.intent, a.v);
    follow(b.intent, b.v);
    await obs.waitFor({ intentId: a.intent.id, type: 'dropped' });
    await obs.waitFor({ intentId: b.intent.id, type: 'finalized', txSignature: copyHash });
    expect(obs.of(a.intent.id)).toEqual(['dropped']);
    expect(obs.of(b.intent.id)).toEqual(['confirmed', 'finalized']);
  });

  it('reports reorged when a confirmed receipt disappears, then confirms the rebroadcast again', async () => {
    start();
    const { intent, v } = await pay(10n);
    follow(intent, v);
    await obs.waitFor({ intentId: intent.id, type: 'confirmed' });
    // Replace the last block (ours) with an empty one: the transaction is gone from chain and pool.
    await anvil.rpc('anvil_reorg', [1, []]);
    expect(await anvil.rpc('eth_getTransactionReceipt', [v.txSignature])).toBeNull();
    await obs.waitFor({ intentId: intent.id, type: 'reorged', txSignature: v.txSignature });
    // Automine is on: the watcher's rebroadcast of the same bytes lands it again.
    await obs.waitFor({ intentId: intent.id, type: 'confirmed' }, 10_000, obs.all.findIndex((o) => o.type === 'reorged'));
    expect(obs.of(intent.id)).toEqual(['confirmed', 'reorged', 'confirmed']);
    expect(await anvil.rpc('eth_getTransactionReceipt', [v.txSignature])).not.toBeNull();
  });

  it('follows many intents with one batched request per tick, every read from one pinned node', async () => {
    const pool = countingPool(poolFor(network));
    await anvil.rpc('evm_setAutomine', [false]);
    const paid = [];
    for (let i = 0; i < 5; i++) paid.push(await pay(BigInt(100 + i)));
    start(baseSepolia([anvil.url], usdc, { rebroadcastIntervalMs: 60_000 }), pool);
    for (const p of paid) follow(p.intent, p.v);
    const deadline = Date.now() + 5_000;
    while (pool.counted.batches.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // Each tick: one batch with head, finalized tag, 5 receipts and 1 sender nonce, on one pin.
    expect(pool.counted.batches.length).toBeGreaterThanOrEqual(3);
    expect(new Set(pool.counted.batches)).toEqual(new Set([8]));
    expect(pool.counted.pooled).toBe(0); // no read fails over mid-decision
    expect(pool.counted.pinned).toBe(pool.counted.batches.length);
    expect(pool.counted.pins).toBeGreaterThanOrEqual(pool.counted.pinned);
    await anvil.rpc('evm_mine');
    for (const p of paid) await obs.waitFor({ intentId: p.intent.id, type: 'confirmed' });
  });

  it('follows a transaction known only by id (no bytes): never sends it, still reports it', async () => {
    start();
    await anvil.rpc('evm_setAutomine', [false]);
    const { intent, v } = await pay(12n); // the payer's wallet broadcast it itself
    watcher.watch({
      intentId: intent.id, chain: network.chain, txSignature: v.txSignature, signedTransaction: null as unknown as string,
      watchData: v.watchData, stage: 'pending', intent,
    });
    await anvil.rpc('anvil_dropTransaction', [v.txSignature]);
    const sentBefore = rpc.counted.methods.length;
    await ticks(5);
    // Nonce unused, nothing to resend: it stays pending and the node never sees our copy.
    expect(rpc.counted.methods.slice(sentBefore)).not.toContain('eth_sendRawTransaction');
    expect(await anvil.rpc('eth_getTransactionByHash', [v.txSignature])).toBeNull();
    expect(obs.of(intent.id)).toEqual([]);
    await anvil.rpc('eth_sendRawTransaction', [`0x${Buffer.from(v.signedTransaction, 'base64').toString('hex')}`]);
    await anvil.rpc('evm_mine');
    await obs.waitFor({ intentId: intent.id, type: 'confirmed', txSignature: v.txSignature });
  });

  it('keeps re-reporting the latest verdict until unwatched, a reorg while the row still says confirmed', async () => {
    obs = observations();
    watcher = (await import('../../../src/chains/evm/watcher')).createEvmWatcher(network, rpc, obs.report, { repeatMs: 50 });
    const { intent, v } = await pay(13n);
    follow(intent, v);
    // A runtime whose writes fail: the verdict keeps coming.
    await waitFor(() => obs.of(intent.id).filter((t) => t === 'confirmed').length >= 3);
    follow(intent, v, 'confirmed'); // the write landed: the runtime re-watches at the row's stage
    await anvil.rpc('evm_setAutomine', [false]);
    await anvil.rpc('anvil_reorg', [1, []]);
    await obs.waitFor({ intentId: intent.id, type: 'reorged' });
    // The reorg's write fails: the row still says confirmed, so the reorg is reported again.
    await waitFor(() => obs.of(intent.id).filter((t) => t === 'reorged').length >= 3);
    follow(intent, v, 'pending'); // now the row says pending: no more reorgs (each would be an event)
    const n = obs.all.length;
    await ticks(5);
    expect(obs.all.slice(n + 1).filter((o) => o.type === 'reorged')).toEqual([]);
    watcher.unwatch(intent.id);
    const m = obs.of(intent.id).length;
    // Another intent keeps the watcher ticking and repeating: the unwatched one is silent.
    await anvil.rpc('evm_setAutomine', [true]);
    const other = await pay(14n);
    follow(other.intent, other.v);
    await waitFor(() => obs.of(other.intent.id).filter((t) => t === 'confirmed').length >= 3);
    expect(obs.of(intent.id).length).toBe(m);
  });

  it('survives an RPC outage and reports once the upstream is back; stop() ends polling', async () => {
    const { startProxy } = await import('../../support/evm/proxy');
    const proxy = await startProxy(anvil.url);
    try {
      const errors: unknown[] = [];
      obs = observations();
      const pool = poolFor(network, [proxy.url]);
      watcher = (await import('../../../src/chains/evm/watcher')).createEvmWatcher(network, pool, obs.report, {
        onError: (e) => errors.push(e),
      });
      await anvil.rpc('evm_setAutomine', [false]);
      const { intent, v } = await pay(11n);
      proxy.mode = 'down';
      follow(intent, v);
      await anvil.rpc('evm_mine');
      // Several ticks fail against the 503 upstream; none may report anything.
      const deadline = Date.now() + 5_000;
      while (errors.length < 3 || proxy.refused < 3) {
        if (Date.now() > deadline) throw new Error(`watcher did not try: ${errors.length} errors, ${proxy.refused} refused`);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((errors[0] as AppError).code).toBe('rpc.unavailable');
      expect(obs.of(intent.id)).toEqual([]);
      proxy.mode = 'up';
      await obs.waitFor({ intentId: intent.id, type: 'confirmed' });
      await watcher.stop();
      const seen = proxy.forwarded;
      await new Promise((r) => setTimeout(r, 200));
      expect(proxy.forwarded).toBe(seen);
    } finally {
      await proxy.stop();
    }
  });
});
