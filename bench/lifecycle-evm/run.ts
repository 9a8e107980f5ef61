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
// payer (a lock); BENCH_PAYERS distinct funded payers let that many run side by side.
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
import { startTestServer, type ApiClient, type TestServer } from '../../test/support/server';
import { callsTable, diffCalls, env, firstLine, isoNow, lagProbe, machine, pct, pool, startHooks, sum, until, writeResults, type Hooks } from '../lifecycle-solana/common';

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

const hardStop = setTimeout(() => {
  console.error(`bench/lifecycle-evm: still running after ${TIMEOUT_S + 30} s, giving up`);
  process.exit(2);
}, (TIMEOUT_S + 30) * 1000);
hardStop.unref();

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

interface PhaseResult {
  n: number;
  ok: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  errors: string[];
  calls: Record<string, number>;
}

function summarize(r: { results: (number | undefined)[]; errors: string[]; seconds: number }, calls: Record<string, number>): PhaseResult {
  const lat = r.results.filter((x): x is number => x !== undefined);
  return { n: r.results.length, ok: lat.length, seconds: r.seconds, perSecond: lat.length / r.seconds, p50: pct(lat, 50), p99: pct(lat, 99), max: Math.max(...lat), errors: r.errors, calls };
}

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
      wallet.sendTransaction({ to: usdc, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [requestors[i % REQUESTORS]!, amount(i, 500_000)] }) }),
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
type PayForgeResult = PhaseResult & { hooks: Record<string, number>; recorded: { p50: number; p99: number }; stepP50: Record<string, number>; cpuShare: number; lagMs: { p50: number; p99: number; max: number } };

async function runPayForge(api: ApiClient, hooks: Hooks, n: number, offset: number): Promise<PayForgeResult> {
  const ids: string[] = new Array(n);
  const steps = { create: [] as number[], build: [] as number[], sign: [] as number[], submit: [] as number[], watch: [] as number[] };
  const hooksBefore = hooks.counts();
  const before = await counters();
  const cpu0 = process.cpuUsage();
  const lag = lagProbe();
  const r = await pool(n, CONCURRENCY, async (j) => {
    const i = offset + j;
    const t0 = performance.now();
    const created = await api.post('/v1/intents', { chain: CHAIN, token: 'USDC', amount: decimal(amount(i, 0)), requestor: requestors[i % REQUESTORS]! });
    if (created.status !== 201) throw new Error(`create ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`);
    const t1 = performance.now();
    const id = (ids[j] = created.body.intent.id as string);
    const payer = payers[i % PAYERS]!;
    const finalized = hooks.finalized(id, 60_000);
    finalized.catch(() => {}); // observed below; avoid an unhandled rejection if submit fails first
    let t2 = 0;
    let t3 = 0;
    await withPayer(payer, async () => {
      const tb = performance.now();
      const built = await api.post(`/v1/intents/${id}/build`, { fulfiller: payer.address });
      if (built.status !== 200) throw new Error(`build ${built.status} ${JSON.stringify(built.body).slice(0, 200)}`);
      t2 = performance.now();
      steps.build.push(t2 - tb);
      const signed = await signBlob(payer, built.body.transaction.blob);
      t3 = performance.now();
      const sub = await api.post(`/v1/intents/${id}/submit`, { signedTransaction: signed });
      if (sub.status !== 200) throw new Error(`submit ${sub.status} ${JSON.stringify(sub.body).slice(0, 200)}`);
    });
    const t4 = performance.now();
    const t5 = await finalized;
    steps.create.push(t1 - t0);
    steps.sign.push(t3 - t2);
    steps.submit.push(t4 - t3);
    steps.watch.push(t5 - t4);
    return t5 - t0;
  });
  const lagMs = lag.stop();
  const cpu = process.cpuUsage(cpu0);
  const cpuShare = (cpu.user + cpu.system) / 1e6 / r.seconds;
  const calls = diffCalls(await counters(), before);
  const recorded: number[] = [];
  for (const id of ids.filter(Boolean)) {
    const it = (await api.get(`/v1/intents/${id}`)).body.intent;
    if (it?.finalizedAt && it?.createdAt) recorded.push(Date.parse(it.finalizedAt) - Date.parse(it.createdAt));
  }
  const stepP50 = Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, pct(v, 50)]));
  return { ...summarize(r, calls), hooks: diffCalls(hooks.counts(), hooksBefore), recorded: { p50: pct(recorded, 50), p99: pct(recorded, 99) }, stepP50, cpuShare, lagMs };
}

const WARMUP = Math.min(N, CONCURRENCY);
let base: PhaseResult;
let pf: PayForgeResult;
try {
  // A warm-up pass of each path first (JIT, connections), not counted.
  await runBaseline(WARMUP, 0);
  base = await runBaseline(N, WARMUP);
  server = await startTestServer({
    networks: { [CHAIN]: { rpc: [RPC_URL], pollIntervalMs: POLL_MS, rebroadcastIntervalMs: REBROADCAST_MS, tokens: { USDC: { address: usdc, decimals: 6 } } } },
    webhooks: { allowPrivateUrls: true },
    rateLimit: { perSecond: 1_000_000_000, burst: 1_000_000_000 },
  });
  const { key, accountId } = server.account({ plan: 'pro' });
  await server.setEndpoint(accountId, 'test', hooks.url);
  const api = server.api(key);
  await runPayForge(api, hooks, WARMUP, 0);
  pf = await runPayForge(api, hooks, N, WARMUP);
} finally {
  await cleanup();
}

const ms = (x: number) => x.toFixed(0);
const ratio = pf.perSecond / base.perSecond;
const date = isoNow();
const md = [
  `Run ${date} · ${machine()}`,
  `anvil (npm @foundry-rs/anvil-linux-amd64) --chain-id 84532 --slots-in-an-epoch 1 --block-time ${BLOCK_TIME} (finalized tag = head - 2), the solc-compiled test ERC-20; ` +
    `both paths through a counting proxy in its own process. N = ${N} after a warm-up of ${WARMUP} per path, ${CONCURRENCY} in flight, ${PAYERS} distinct funded payers ` +
    `(build/send serialized per payer: the pending nonce), ${REQUESTORS} requestors. PayForge watcher poll ${POLL_MS} ms, rebroadcast ${REBROADCAST_MS} ms; ` +
    `the baseline polls receipt + finalized block every ${POLL_MS} ms per transfer.`,
  '',
  '| path | done | intents/s | p50 ms | p99 ms | max ms | RPC calls / intent | errors |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  `| anvil send-and-confirm (baseline): viem walletClient.sendTransaction, poll to finalized | ${base.ok}/${base.n} | ${base.perSecond.toFixed(1)} | ${ms(base.p50)} | ${ms(base.p99)} | ${ms(base.max)} | ${(sum(base.calls) / base.n).toFixed(2)} | ${base.errors.length} |`,
  `| PayForge create -> build -> sign -> submit -> intent.finalized webhook | ${pf.ok}/${pf.n} | ${pf.perSecond.toFixed(1)} | ${ms(pf.p50)} | ${ms(pf.p99)} | ${ms(pf.max)} | ${(sum(pf.calls) / pf.n).toFixed(2)} | ${pf.errors.length} |`,
  '',
  `PayForge / baseline: **${(ratio * 100).toFixed(1)} %** (intents/s). ` +
    `PayForge process (server, driver, receiver) during the run: ${(pf.cpuShare * 100).toFixed(0)} % of one core, event-loop lag p50 ${ms(pf.lagMs.p50)} ms, p99 ${ms(pf.lagMs.p99)} ms. ` +
    `PayForge steps, p50 ms: create ${ms(pf.stepP50.create!)}, build ${ms(pf.stepP50.build!)}, sign ${ms(pf.stepP50.sign!)}, submit ${ms(pf.stepP50.submit!)}, submit answered -> intent.finalized webhook ${ms(pf.stepP50.watch!)}. ` +
    `PayForge's own createdAt -> finalizedAt: p50 ${ms(pf.recorded.p50)} ms, p99 ${ms(pf.recorded.p99)} ms. ` +
    `Webhooks received: ${Object.entries(pf.hooks).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
  '',
  ...callsTable(pf.n, pf.calls, base.calls, base.n),
].join('\n');

console.log(md);
console.log(`\nBENCH_RESULT ${JSON.stringify({ date, n: N, concurrency: CONCURRENCY, payers: PAYERS, blockTime: BLOCK_TIME, pollMs: POLL_MS, baseline: { ...base, errors: base.errors.length }, payforge: { ...pf, errors: pf.errors.length }, ratio })}`);

const failures = [...base.errors.map((e) => `baseline ${e}`), ...pf.errors.map((e) => `PayForge ${e}`)];
if (WRITE && failures.length === 0) console.log(`\nwritten to ${writeResults('lifecycle-evm', md)}`);
if (failures.length > 0) {
  console.error(failures.slice(0, 20).join('\n'));
  process.exit(1);
}
process.exit(0);
