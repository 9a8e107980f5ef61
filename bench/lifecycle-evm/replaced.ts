// bench/lifecycle-evm/replaced.ts: what the wait for final evidence costs in RPC calls when the
// payer's wallet replaces our transfer (contract 14: `dropped` only once the transaction that
// took the nonce is at or below the `finalized` tag). N payers each sign our transfer, then send
// a different transaction at the same nonce; the EVM watcher follows our transfers until each is
// reported dropped. Calls are counted per JSON-RPC call through a counting pool, by method.
//
// Usage: bun bench/lifecycle-evm/replaced.ts   Env: BENCH_N (32), BENCH_BLOCK_TIME (0.2 s),
// BENCH_POLL_MS (100), BENCH_REBROADCAST_MS (4000). Prints a markdown table and a JSON line.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { evmAdapter } from '../../src/chains/evm/adapter';
import type { ChainObservation } from '../../src/chains/types';
import { startAnvil } from '../../test/support/evm/anvil';
import { baseSepolia, countingPool, intentFor, poolFor, signBlob } from '../../test/support/evm/chain';
import { deployToken, ownerClient, tokenAbi } from '../../test/support/evm/token';
import { env } from '../support/env';
import { hardStop } from '../support/guard';
import { until } from '../support/until';

const N = env('BENCH_N', 32);
const BLOCK_TIME = env('BENCH_BLOCK_TIME', 0.2);
const POLL_MS = env('BENCH_POLL_MS', 100);
const REBROADCAST_MS = env('BENCH_REBROADCAST_MS', 4000);
hardStop('bench/lifecycle-evm/replaced', 120);

const anvil = await startAnvil('base', ['--block-time', String(BLOCK_TIME)]);
try {
  const payers = Array.from({ length: N }, () => privateKeyToAccount(generatePrivateKey()));
  const requestor = privateKeyToAccount(generatePrivateKey()).address;
  const usdc = await deployToken(anvil, {});
  const owner = ownerClient(anvil);
  for (const p of payers) {
    await anvil.rpc('anvil_setBalance', [p.address, '0x56bc75e2d63100000']);
    await owner.waitForTransactionReceipt({ hash: await owner.writeContract({ address: usdc, abi: tokenAbi(), functionName: 'mint', args: [p.address, 10_000_000n] }) });
  }
  const network = baseSepolia([anvil.url], usdc, { pollIntervalMs: POLL_MS, rebroadcastIntervalMs: REBROADCAST_MS });
  const direct = poolFor(network);
  const counted = countingPool(poolFor(network));
  const seen: ChainObservation[] = [];
  const watcher = evmAdapter.createWatcher(network, counted, (o) => seen.push(o));
  const ids: string[] = [];
  for (const p of payers) {
    const intent = intentFor(network, 'USDC', { requestor, fulfiller: p.address, amount: 1_000_000n });
    const built = await evmAdapter.build(network, direct, intent, p.address);
    const v = await evmAdapter.verifySubmission(network, direct, intent, await signBlob(p, built.transaction.blob), built.buildData);
    // The wallet sent something else at that nonce first (higher fees): ours never gets in.
    const other = await signBlob(p, built.transaction.blob, { to: p.address, data: '0x', maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 10_000_000_000n });
    await anvil.rpc('eth_sendRawTransaction', [`0x${Buffer.from(other, 'base64').toString('hex')}`]);
    watcher.watch({ intentId: intent.id, chain: network.chain, txSignature: v.txSignature, signedTransaction: v.signedTransaction, watchData: v.watchData, stage: 'pending', intent });
    ids.push(intent.id);
  }
  const t0 = performance.now();
  await until(async () => ids.every((id) => seen.some((o) => o.intentId === id && o.type === 'dropped')), 60_000, 20, 'every intent dropped');
  const seconds = (performance.now() - t0) / 1000;
  await watcher.stop();
  const byMethod: Record<string, number> = {};
  for (const m of counted.counted.methods) byMethod[m] = (byMethod[m] ?? 0) + 1;
  const total = counted.counted.methods.length;
  console.log(`| RPC method | calls / replaced intent until dropped |\n|---|---:|`);
  for (const [m, c] of Object.entries(byMethod).sort((a, b) => b[1] - a[1])) console.log(`| ${m} | ${(c / N).toFixed(2)} |`);
  console.log(`| **total** | **${(total / N).toFixed(2)}** |`);
  console.log(`ticks (pins): ${counted.counted.pins}, seconds to the last dropped: ${seconds.toFixed(2)}`);
  console.log(`BENCH_RESULT ${JSON.stringify({ n: N, blockTime: BLOCK_TIME, pollMs: POLL_MS, seconds, ticks: counted.counted.pins, perIntent: total / N, byMethod })}`);
} finally {
  await anvil.stop();
}
