// Contract 14, lagging-node guard: after a confirmed payment the pool fails over to a real second
// anvil forked 8 blocks behind. A node below the receipt's block knows less, it has not seen a
// reorg: no reorged (no confirmed -> pending -> confirmed events); finality arrives once back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { evmAdapter } from '../../../src/chains/evm/adapter';
import type { Watcher } from '../../../src/chains/types';
import { createRpcPool } from '../../../src/rpc/pool';
import { waitFor } from '../../support/api';
import { DEV_KEYS, receiptOf, startAnvil, type Anvil } from '../../support/evm/anvil';
import { baseSepolia, intentFor, poolFor, signBlob } from '../../support/evm/chain';
import { observations } from '../../support/evm/observe';
import { startProxy, type RpcProxy } from '../../support/evm/proxy';
import { deployToken } from '../../support/evm/token';

let ahead: Anvil;
let behind: Anvil | undefined;
let toAhead: RpcProxy;
let toBehind: RpcProxy | undefined;
let usdc: Hex;
let watcher: Watcher | undefined;
let restarted: Watcher | undefined;
/** What the first test leaves for the second: the pool, the paid intent and its confirmed row's watch data. */
let paid: { pool: ReturnType<typeof createRpcPool>; intent: ReturnType<typeof intentFor>; txSignature: string; watchData: Record<string, unknown>; seenIn: number } | undefined;
const payer = privateKeyToAccount(DEV_KEYS[6]);
const requestor = privateKeyToAccount(generatePrivateKey()).address;
const headOf = async (a: Anvil) => Number(await a.rpc<string>('eth_blockNumber'));

beforeAll(async () => {
  ahead = await startAnvil('base');
  usdc = await deployToken(ahead, { [payer.address]: 1_000_000n });
  await ahead.rpc('anvil_mine', ['0xa']);
  toAhead = await startProxy(ahead.url);
}, 60_000);
afterAll(async () => {
  await watcher?.stop();
  await restarted?.stop();
  await toBehind?.stop();
  await behind?.stop();
  await toAhead?.stop();
  await ahead?.stop();
});

describe('a node that is behind is never read as a reorg', () => {
  it('fails over after confirmed to an upstream 8 blocks behind: no extra events, finalized once back', async () => {
    const network = baseSepolia([ahead.url], usdc);
    const direct = poolFor(network);
    const intent = intentFor(network, 'USDC', { requestor, fulfiller: payer.address, amount: 250_000n });
    const built = await evmAdapter.build(network, direct, intent, payer.address);
    const v = await evmAdapter.verifySubmission(network, direct, intent, await signBlob(payer, built.transaction.blob), built.buildData);
    await evmAdapter.broadcast(network, direct, v);
    // Polled: the node may answer the send before its receipt is readable.
    const seenIn = Number((await receiptOf(ahead, v.txSignature, 30_000)).blockNumber);

    // The second upstream: a real anvil forked from the first, 8 blocks below the receipt's block.
    behind = await startAnvil('base', ['--fork-url', ahead.url, '--fork-block-number', String(seenIn - 8)]);
    toBehind = await startProxy(behind.url);
    expect(await headOf(behind)).toBe(seenIn - 8);
    expect(await behind.rpc('eth_getTransactionReceipt', [v.txSignature])).toBeNull();

    const pool = createRpcPool({
      chain: network.chain, urls: [toAhead.url, toBehind.url], timeoutMs: 2_000,
      breakerFailures: 1, breakerCooldownMs: 300, retryAfterSeconds: 1,
    });
    const obs = observations();
    watcher = evmAdapter.createWatcher(network, pool, obs.report);
    watcher.watch({
      intentId: intent.id, chain: network.chain, txSignature: v.txSignature, signedTransaction: v.signedTransaction,
      watchData: v.watchData, stage: 'pending', intent,
    });
    const confirmed = await obs.waitFor({ intentId: intent.id, type: 'confirmed' });
    // The verdict carries where the receipt was read, for the row (a restarted watcher needs it).
    expect(confirmed).toMatchObject({ watchData: { seenBlock: seenIn } });

    // The first upstream goes away: every decision is now read from the node that is behind.
    toAhead.mode = 'down';
    const seen = toBehind.forwarded;
    await waitFor(() => toBehind!.forwarded >= seen + 6, 30_000, 'ticks on the lagging node');
    expect(obs.of(intent.id)).toEqual(['confirmed']);

    // Back on the node that is ahead: finality, and still no reorg in between.
    toAhead.mode = 'up';
    await ahead.rpc('anvil_mine', ['0x2']);
    await obs.waitFor({ intentId: intent.id, type: 'finalized' }, 30_000);
    expect(obs.of(intent.id)).toEqual(['confirmed', 'finalized']);
    paid = { pool, intent, txSignature: v.txSignature, watchData: { ...v.watchData, ...(confirmed as { watchData: object }).watchData }, seenIn };
  });

  it('a restarted watcher (receipt never read by it, block known from the row) on the lagging node: no reorg', async () => {
    const { pool, intent, txSignature, watchData, seenIn } = paid!;
    expect(watchData.seenBlock).toBe(seenIn);
    toAhead.mode = 'down';
    const obs = observations();
    restarted = evmAdapter.createWatcher(baseSepolia([ahead.url], usdc), pool, obs.report);
    restarted.watch({ intentId: intent.id, chain: intent.chain, txSignature, signedTransaction: null, watchData, stage: 'confirmed', intent });
    const seen = toBehind!.forwarded;
    await waitFor(() => toBehind!.forwarded >= seen + 6, 30_000, 'ticks on the lagging node');
    expect(obs.of(intent.id)).toEqual([]);
    toAhead.mode = 'up';
    await obs.waitFor({ intentId: intent.id, type: 'finalized' }, 30_000);
    expect(obs.of(intent.id)).toEqual(['finalized']);
  });
});
