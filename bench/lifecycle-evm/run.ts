// bench/lifecycle-evm: intents/s from create to finalized through PayForge's HTTP API on anvil
// (Base Sepolia flavour: --chain-id 84532 --slots-in-an-epoch 1, a short --block-time, the
// solc-compiled test ERC-20 from test/support/evm/token.ts), beside anvil's own send-and-confirm
// rate measured in the same run: a viem wallet client sending the same transfers directly and
// waiting for the same finality (receipt block <= the `finalized` tag). RPC calls per intent come
// from a counting proxy (proxy-proc.ts, its own process) that both paths go through.
//
// PayForge path, per intent (BENCH_CONCURRENCY in flight): POST /v1/intents -> POST .../build ->
// sign the blob with a viem account (signBlob) -> POST .../submit -> intent.finalized webhook at a
// loopback receiver. build takes the fulfiller's PENDING nonce, so build -> submit is serialized per
// payer (a lock); BENCH_PAYERS distinct funded payers let that many run side by side. Wallet-sends
// path, per intent: POST /v1/intents -> the payer's wallet sends the EIP-681 transfer of
// `paymentUri` itself (viem: its own nonce and gas, as MetaMask does; no build, no submit) ->
// PayForge's log scan finds it -> the intent.finalized webhook.
//
// Usage: bun bench/lifecycle-evm/run.ts [--write]   (--write records the run in bench/RESULTS.md)
// Env: BENCH_N (200), BENCH_CONCURRENCY (32), BENCH_PAYERS (32), BENCH_BLOCK_TIME (0.2 s),
//      BENCH_POLL_MS (100), BENCH_REBROADCAST_MS (4000), BENCH_TIMEOUT_S (100)
import { join } from 'node:path';
import { createWalletClient, defineChain, encodeFunctionData, erc20Abi, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startAnvil } from '../../test/support/evm/anvil';
import { signBlob } from '../../test/support/evm/chain';
import { deployToken, ownerClient, tokenAbi } from '../../test/support/evm/token';
import type { ApiClient, TestServer } from '../../test/support/server';
import { firstLine } from '../support/child';
import { env } from '../support/env';
import { finish } from '../support/finish';
import { hardStop } from '../support/guard';
import { startHooks } from '../support/hooks';
import { buildSignSubmit, runPayForge, type PayForgePhase, type PayForgeResult } from '../support/payforge-phase';
import { benchApi, startBenchServer } from '../support/payforge-server';
import { summarize, warmThenMeasure, type PhaseResult } from '../support/phase';
import { pool } from '../support/pool';
import { isoNow, lifecycleReport } from '../support/report';
import { diffCalls } from '../support/rpc-calls';
import { until } from '../support/until';
import { payEip681 } from '../support/wallets';

const N = env('BENCH_N', 200);
const CONCURRENCY = env('BENCH_CONCURRENCY', 32);
const PAYERS = env('BENCH_PAYERS', 32);
const BLOCK_TIME = env('BENCH_BLOCK_TIME', 0.2);
const POLL_MS = env('BENCH_POLL_MS', 100);
const REBROADCAST_MS = env('BENCH_REBROADCAST_MS', 4000);
const TIMEOUT_S = env('BENCH_TIMEOUT_S', 100);
const WRITE = process.argv.includes('--write');
const CHAIN = 'eip155:84532';
const REQUESTORS = 8;

hardStop('bench/lifecycle-evm', TIMEOUT_S);

const anvil = await startAnvil('base', ['--block-time', String(BLOCK_TIME)]);
const proxyProc = Bun.spawn([process.execPath, join(import.meta.dir, 'proxy-proc.ts'), JSON.stringify({ target: anvil.url, maxSeconds: TIMEOUT_S + 60 })], {
  stdin: 'pipe',
  stdout: 'pipe',
  stderr: 'inherit',
});
let server: TestServer | null = null;
const hooks = startHooks();

async function cleanup(): Promise<void> {
  await server?.stop().catch(() => {});
  await hooks.close().catch(() => {});
  proxyProc.stdin.end();
  await proxyProc.exited;
  await anvil.stop();
}

const { url: RPC_URL, control: CONTROL } = await firstLine<{ url: string; control: string }>(proxyProc.stdout);
const counters = async () => ((await (await fetch(`${CONTROL}/counters`)).json()) as { calls: Record<string, number> }).calls;

const chain = defineChain({
  id: 84532,
  name: 'anvil 84532',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [RPC_URL] } },
});

// --- setup: the token, PAYERS fresh funded payers, merchants ---------------------------------
const payers: PrivateKeyAccount[] = Array.from({ length: PAYERS }, () => privateKeyToAccount(generatePrivateKey()));
const requestors: Hex[] = Array.from({ length: REQUESTORS }, () => privateKeyToAccount(generatePrivateKey()).address);
// The baseline pays merchants of its own: PayForge's log scan watches `requestors`, and would
// otherwise find the baseline's earlier transfers (unmatched, no open intent) on its first look back.
const baselineRequestors: Hex[] = Array.from({ length: REQUESTORS }, () => privateKeyToAccount(generatePrivateKey()).address);
let usdc: Hex;
{
  usdc = await deployToken(anvil, {});
  const owner = ownerClient(anvil);
  let nonce = await owner.getTransactionCount({ address: owner.account.address, blockTag: 'pending' });
  const hashes: Hex[] = [];
  for (const p of payers) {
    await anvil.rpc('anvil_setBalance', [p.address, '0x56bc75e2d63100000']); // 100 ETH
    hashes.push(await owner.writeContract({ address: usdc, abi: tokenAbi(), functionName: 'mint', args: [p.address, 1_000_000_000_000n], nonce: nonce++ }));
  }
  for (const h of hashes) {
    const r = await owner.waitForTransactionReceipt({ hash: h });
    if (r.status !== 'success') throw new Error(`mint ${h} reverted`);
  }
}

/** One build/send at a time per payer: both paths take the payer's pending nonce. */
const locks = new Map<string, Promise<unknown>>();
async function withPayer<T>(p: PrivateKeyAccount, fn: () => Promise<T>): Promise<T> {
  const prev = locks.get(p.address) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  locks.set(p.address, run.catch(() => {}));
  return run;
}

const amount = (i: number, offset: number) => 1_000_000n + BigInt(offset + i);
const decimal = (u: bigint) => `${u / 1_000_000n}.${(u % 1_000_000n).toString().padStart(6, '0')}`;

let rpcId = 0;
async function rpcBatch(calls: Array<{ method: string; params: unknown[] }>): Promise<Array<{ result?: any; error?: { message: string } }>> {
  const res = await fetch(RPC_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls.map((c) => ({ jsonrpc: '2.0', id: ++rpcId, ...c }))),
  });
  const out = (await res.json()) as Array<{ id: number; result?: unknown; error?: { message: string } }>;
  return out.sort((a, b) => a.id - b.id);
}

// --- baseline: anvil's own send-and-confirm through a viem wallet client ----------------------
const wallets = new Map(payers.map((p) => [p.address, createWalletClient({ account: p, chain, transport: http(RPC_URL) })]));

async function runBaseline(n: number, offset: number): Promise<PhaseResult> {
  const before = await counters();
  const r = await pool(n, CONCURRENCY, async (j) => {
    const i = offset + j;
    const t0 = performance.now();
    const payer = payers[i % PAYERS]!;
    const wallet = wallets.get(payer.address)!;
    const hash = await withPayer(payer, () =>
      wallet.sendTransaction({ to: usdc, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [baselineRequestors[i % REQUESTORS]!, amount(i, 500_000)] }) }),
    );
    await until(
      async () => {
        const [receipt, fin] = await rpcBatch([
          { method: 'eth_getTransactionReceipt', params: [hash] },
          { method: 'eth_getBlockByNumber', params: ['finalized', false] },
        ]);
        const rc = receipt?.result as { status: string; blockNumber: string } | null;
        if (!rc) return false;
        if (rc.status !== '0x1') throw new Error(`transfer ${hash} reverted`);
        return fin?.result && BigInt(rc.blockNumber) <= BigInt(fin.result.number);
      },
      60_000,
      POLL_MS,
      `baseline transfer ${hash} finalized`,
    );
    return performance.now() - t0;
  });
  return summarize(r, diffCalls(await counters(), before));
}

// --- PayForge: create -> build -> sign -> submit -> intent.finalized webhook -----------------
// build -> submit holds the payer's lock (the pending nonce); build is timed inside it.
const payforge = (api: ApiClient): PayForgePhase => ({
  api,
  hooks,
  concurrency: CONCURRENCY,
  counters,
  intent: (i) => ({ chain: CHAIN, token: 'USDC', amount: decimal(amount(i, 0)), requestor: requestors[i % REQUESTORS]! }),
  pay: (id, i) => {
    const payer = payers[i % PAYERS]!;
    return withPayer(payer, () => buildSignSubmit(api, id, payer.address, (blob) => signBlob(payer, blob)));
  },
});

// --- PayForge, wallet sends: create -> the wallet pays paymentUri itself -> detected -> webhook ---
const walletSends = (api: ApiClient): PayForgePhase => ({
  api,
  hooks,
  concurrency: CONCURRENCY,
  counters,
  intent: (i) => ({ chain: CHAIN, token: 'USDC', amount: decimal(amount(i, 1_000_000)), requestor: requestors[i % REQUESTORS]! }),
  pay: async (_id, i, intent) => {
    const payer = payers[i % PAYERS]!;
    const t = performance.now();
    await withPayer(payer, () => payEip681(wallets.get(payer.address)!, intent.paymentUri));
    return { buildMs: 0, builtAt: t, signedAt: t };
  },
});

const WARMUP = Math.min(N, CONCURRENCY);
let base: PhaseResult;
let pf: PayForgeResult;
let ws: PayForgeResult;
try {
  // A warm-up pass of each path first (JIT, connections), not counted.
  base = await warmThenMeasure(runBaseline, WARMUP, N);
  server = await startBenchServer({ [CHAIN]: { rpc: [RPC_URL], pollIntervalMs: POLL_MS, rebroadcastIntervalMs: REBROADCAST_MS, tokens: { USDC: { address: usdc, decimals: 6 } } } });
  const phase = payforge(await benchApi(server, hooks.url));
  pf = await warmThenMeasure((n, offset) => runPayForge(phase, n, offset), WARMUP, N);
  const wallet = walletSends(phase.api);
  ws = await warmThenMeasure((n, offset) => runPayForge(wallet, n, offset), WARMUP, N);
} finally {
  await cleanup();
}

const ratio = pf.perSecond / base.perSecond;
const date = isoNow();
const md = lifecycleReport({
  date,
  setup:
    `anvil (npm @foundry-rs/anvil-linux-amd64) --chain-id 84532 --slots-in-an-epoch 1 --block-time ${BLOCK_TIME} (finalized tag = head - 2), the solc-compiled test ERC-20; ` +
    `both paths through a counting proxy in its own process. N = ${N} after a warm-up of ${WARMUP} per path, ${CONCURRENCY} in flight, ${PAYERS} distinct funded payers ` +
    `(build/send serialized per payer: the pending nonce), ${REQUESTORS} requestors. PayForge watcher poll ${POLL_MS} ms, rebroadcast ${REBROADCAST_MS} ms; ` +
    `the baseline polls receipt + finalized block every ${POLL_MS} ms per transfer.`,
  baseline: 'anvil send-and-confirm (baseline): viem walletClient.sendTransaction, poll to finalized',
  base,
  pf,
  wallet: { label: 'PayForge wallet sends: create -> wallet sends the EIP-681 transfer of paymentUri itself (no build, no submit) -> detected -> intent.finalized webhook', result: ws },
});

console.log(md);
console.log(`\nBENCH_RESULT ${JSON.stringify({ date, n: N, concurrency: CONCURRENCY, payers: PAYERS, blockTime: BLOCK_TIME, pollMs: POLL_MS, baseline: { ...base, errors: base.errors.length }, payforge: { ...pf, errors: pf.errors.length }, walletSends: { ...ws, errors: ws.errors.length }, ratio })}`);

finish('lifecycle-evm', md, base, pf, WRITE, ws);
