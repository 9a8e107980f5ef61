// bench/lifecycle-evm: EVM intents/s from create to finalized through the real HTTP server on
// anvil (Base Sepolia emulation, ERC-20 from solc), beside anvil's own send-and-confirm rate for
// the same transfers from the same senders in the same run (the ceiling the chain allows).
// Usage: bun bench/lifecycle-evm/run.ts [--write]   (--write records the run in ./RESULTS.md)
import { appendFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEV_KEYS, startAnvil } from '../../test/support/evm/anvil';
import { signBlob } from '../../test/support/evm/chain';
import { deployToken } from '../../test/support/evm/token';
import { startTestServer } from '../../test/support/server';

const INTENTS = Number(process.env.BENCH_INTENTS ?? 200);
const SENDERS = Math.min(Number(process.env.BENCH_SENDERS ?? 8), DEV_KEYS.length - 1);
const CHAIN = 'eip155:84532';

const anvil = await startAnvil('base');
const payers = DEV_KEYS.slice(1, 1 + SENDERS).map((k) => privateKeyToAccount(k));
const usdc = await deployToken(anvil, Object.fromEntries(payers.map((p) => [p.address, 10n ** 15n])));
const server = await startTestServer({
  networks: { [CHAIN]: { rpc: [anvil.url], pollIntervalMs: 100, rebroadcastIntervalMs: 1000, tokens: { USDC: { address: usdc, decimals: 6 } } } },
});
const api = server.api(server.account({ plan: 'pro' }).key);
const requestor = privateKeyToAccount(generatePrivateKey()).address;

/** Split `n` jobs over the senders: each sender works its share one after another (nonce order). */
async function perSender(n: number, job: (payer: (typeof payers)[number], i: number) => Promise<void>): Promise<void> {
  await Promise.all(
    payers.map(async (payer, s) => {
      for (let i = s; i < n; i += payers.length) await job(payer, i);
    }),
  );
}

// Finality needs blocks after the last transfer; automine only makes one per transaction.
let mining = true;
const miner = (async () => {
  while (mining) {
    await anvil.rpc('evm_mine');
    await Bun.sleep(100);
  }
})();

// 1. Baseline: anvil's own rate for the same transfer, signed locally, sent raw, receipt awaited.
const tBase = performance.now();
await perSender(INTENTS, async (payer) => {
  const nonce = Number(await anvil.rpc<string>('eth_getTransactionCount', [payer.address, 'pending']));
  const raw = await payer.signTransaction({
    type: 'eip1559', chainId: 84532, nonce, to: usdc, gas: 100_000n, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [requestor, 1_000_000n] }),
  });
  const hash = await anvil.rpc<Hex>('eth_sendRawTransaction', [raw]);
  while (!(await anvil.rpc('eth_getTransactionReceipt', [hash]))) await Bun.sleep(5);
});
const baselineSeconds = (performance.now() - tBase) / 1000;

// 2. PayForge: create -> build -> sign -> submit per intent, then wait until all are finalized.
const ids: string[] = [];
const t0 = performance.now();
await perSender(INTENTS, async (payer) => {
  const c = await api.post('/v1/intents', { chain: CHAIN, token: 'USDC', amount: '1', requestor });
  if (c.status !== 201) throw new Error(`create ${c.status} ${JSON.stringify(c.body)}`);
  const id = c.body.intent.id as string;
  const b = await api.post(`/v1/intents/${id}/build`, { fulfiller: payer.address });
  if (b.status !== 200) throw new Error(`build ${b.status} ${JSON.stringify(b.body)}`);
  const s = await api.post(`/v1/intents/${id}/submit`, { signedTransaction: await signBlob(payer, b.body.transaction.blob) });
  if (s.status !== 200) throw new Error(`submit ${s.status} ${JSON.stringify(s.body)}`);
  ids.push(id);
});
const submittedSeconds = (performance.now() - t0) / 1000;
const pending = new Set(ids);
while (pending.size > 0) {
  for (const id of [...pending]) {
    const r = await api.get(`/v1/intents/${id}`);
    const state = r.body.intent.state as string;
    if (state === 'finalized') pending.delete(id);
    else if (!['pending', 'confirmed'].includes(state)) throw new Error(`${id} ended ${state}`);
  }
  if (pending.size > 0) await Bun.sleep(50);
}
const finalizedSeconds = (performance.now() - t0) / 1000;
mining = false;
await miner;
await server.stop();
await anvil.stop();

const result = {
  intents: INTENTS,
  senders: SENDERS,
  payforge_create_to_finalized_per_s: +(INTENTS / finalizedSeconds).toFixed(1),
  payforge_create_to_submitted_per_s: +(INTENTS / submittedSeconds).toFixed(1),
  anvil_send_and_confirm_per_s: +(INTENTS / baselineSeconds).toFixed(1),
  seconds: { payforge_finalized: +finalizedSeconds.toFixed(2), payforge_submitted: +submittedSeconds.toFixed(2), anvil: +baselineSeconds.toFixed(2) },
  cpus: cpus().length,
};
console.log(`BENCH_JSON ${JSON.stringify(result)}`);
if (process.argv.includes('--write')) {
  appendFileSync(
    join(import.meta.dir, 'RESULTS.md'),
    `| ${new Date().toISOString().slice(0, 10)} | ${INTENTS} | ${SENDERS} | ${result.payforge_create_to_finalized_per_s} | ${result.payforge_create_to_submitted_per_s} | ${result.anvil_send_and_confirm_per_s} | ${result.cpus} |\n`,
  );
}
