// bench/lifecycle-solana: intents/s from create to finalized through PayForge's HTTP API against the
// local Solana (LiteSVM + real SPL Token behind test/support's JSON-RPC server), beside the local
// runtime's own send-and-confirm rate measured in the same run on the same RPC server; RPC calls
// per intent from the server's own counters.
//
// PayForge path, per intent (BENCH_CONCURRENCY in flight): POST /v1/intents -> POST .../build ->
// sign the message with a kit signer (signMessageBlob) -> POST .../submit -> the intent.finalized
// webhook arrives at a loopback receiver. Baseline, per transfer: getLatestBlockhash -> the same
// instructions (compute budget + transferChecked) signed with kit -> sendTransaction (preflight,
// as PayForge's submit does) -> getSignatureStatuses every BENCH_POLL_MS (the watcher's interval)
// until finalized.
//
// Usage: bun bench/lifecycle-solana/run.ts [--write]   (--write records the run in bench/RESULTS.md)
// Env: BENCH_N (200), BENCH_CONCURRENCY (32), BENCH_SLOT_MS (20), BENCH_POLL_MS (100),
//      BENCH_REBROADCAST_MS (2000), BENCH_FULFILLERS (8), BENCH_REQUESTORS (8), BENCH_TIMEOUT_S (90)
import {
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  blockhash as toBlockhash,
  type KeyPairSigner,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { COMPUTE_UNIT_PRICE_MICRO_LAMPORTS, COMPUTE_UNITS_TRANSFER } from '../../src/chains/solana/programs';
import { join } from 'node:path';
import { DEVNET_CHAIN, DEVNET_USDC_MINT } from '../../test/support/solana/local-solana';
import { signMessageBlob } from '../../test/support/solana/wallet';
import { startTestServer, type ApiClient, type TestServer } from '../../test/support/server';
import { callsTable, diffCalls, env, firstLine, isoNow, machine, pct, pool, startHooks, sum, until, writeResults, lagProbe, type Hooks } from './common';

const N = env('BENCH_N', 200);
const CONCURRENCY = env('BENCH_CONCURRENCY', 32);
const SLOT_MS = env('BENCH_SLOT_MS', 20);
const POLL_MS = env('BENCH_POLL_MS', 100);
const REBROADCAST_MS = env('BENCH_REBROADCAST_MS', 2000);
const FULFILLERS = env('BENCH_FULFILLERS', 8);
const REQUESTORS = env('BENCH_REQUESTORS', 8);
const TIMEOUT_S = env('BENCH_TIMEOUT_S', 90);
const WRITE = process.argv.includes('--write');
const DECIMALS = 6;

// Everything stops by itself: a hard guard in case something hangs past the budget.
const hardStop = setTimeout(() => {
  console.error(`bench/lifecycle-solana: still running after ${TIMEOUT_S + 30} s, giving up`);
  process.exit(2);
}, (TIMEOUT_S + 30) * 1000);
hardStop.unref();

// The chain runs in its own process (chain-proc.ts): LiteSVM's slot clock and RPC server must not
// share the event loop of PayForge and of this driver.
const child = Bun.spawn([process.execPath, join(import.meta.dir, 'chain-proc.ts'), JSON.stringify({ slotMs: SLOT_MS, maxSeconds: TIMEOUT_S + 60 })], {
  stdin: 'pipe',
  stdout: 'pipe',
  stderr: 'inherit',
});
const { rpc: RPC_URL, control: CONTROL } = await firstLine(child.stdout);
const controlCall = async <T>(path: string, body?: unknown): Promise<T> => {
  const res = await fetch(`${CONTROL}${path}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`chain control ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};
const counters = async () => (await controlCall<{ calls: Record<string, number> }>('/counters')).calls;

const fulfillers: KeyPairSigner[] = await Promise.all(Array.from({ length: FULFILLERS }, () => generateKeyPairSigner()));
// Merchants: requestors whose token accounts exist (rent 0), shared by both paths.
const requestors = await Promise.all(Array.from({ length: REQUESTORS }, () => generateKeyPairSigner()));
const { fundAtas: fulfillerAtas, merchantAtas: requestorAtas } = await controlCall<{ fundAtas: string[]; merchantAtas: string[] }>('/setup', {
  mint: DEVNET_USDC_MINT,
  decimals: DECIMALS,
  fund: fulfillers.map((f) => f.address),
  merchants: requestors.map((r) => r.address),
});

// Distinct amounts keep every message (and so every signature) distinct, however the blockhashes fall.
const baseUnits = (i: number, offset: number) => 1_000_000n + BigInt(offset + i);
const decimal = (u: bigint) => `${u / 1_000_000n}.${(u % 1_000_000n).toString().padStart(6, '0')}`;

let rpcId = 0;
async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  const res = await fetch(RPC_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

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

// --- baseline: the local runtime's own send-and-confirm --------------------------------------
async function runBaseline(n: number, offset: number): Promise<PhaseResult> {
  const before = await counters();
  const r = await pool(n, CONCURRENCY, async (j) => {
    const i = offset + j;
    const t0 = performance.now();
    const payer = fulfillers[i % FULFILLERS]!;
    const latest = await rpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>('getLatestBlockhash', [{ commitment: 'confirmed' }]);
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(latest.value.blockhash), lastValidBlockHeight: BigInt(latest.value.lastValidBlockHeight) }, m),
      (m) =>
        appendTransactionMessageInstructions(
          [
            getSetComputeUnitLimitInstruction({ units: COMPUTE_UNITS_TRANSFER }),
            getSetComputeUnitPriceInstruction({ microLamports: COMPUTE_UNIT_PRICE_MICRO_LAMPORTS }),
            getTransferCheckedInstruction({
              source: address(fulfillerAtas[i % FULFILLERS]!),
              mint: address(DEVNET_USDC_MINT),
              destination: address(requestorAtas[i % REQUESTORS]!),
              authority: payer,
              amount: baseUnits(i, 500_000),
              decimals: DECIMALS,
            }),
          ],
          m,
        ),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const signature = getSignatureFromTransaction(signed);
    await rpc('sendTransaction', [getBase64EncodedWireTransaction(signed), { encoding: 'base64', skipPreflight: false, preflightCommitment: 'confirmed', maxRetries: 0 }]);
    await until(
      async () => {
        const s = await rpc<{ value: Array<{ confirmationStatus: string; err: unknown } | null> }>('getSignatureStatuses', [[signature], { searchTransactionHistory: false }]);
        const st = s.value[0];
        if (st?.err) throw new Error(`transfer ${signature} failed: ${JSON.stringify(st.err)}`);
        return st?.confirmationStatus === 'finalized';
      },
      30_000,
      POLL_MS,
      `baseline transfer ${signature} finalized`,
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
    const created = await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: decimal(baseUnits(i, 0)), requestor: requestors[i % REQUESTORS]!.address });
    if (created.status !== 201) throw new Error(`create ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`);
    const t1 = performance.now();
    const id = (ids[j] = created.body.intent.id as string);
    const fulfiller = fulfillers[i % FULFILLERS]!;
    const built = await api.post(`/v1/intents/${id}/build`, { fulfiller: fulfiller.address });
    if (built.status !== 200) throw new Error(`build ${built.status} ${JSON.stringify(built.body).slice(0, 200)}`);
    const t2 = performance.now();
    const finalized = hooks.finalized(id, 60_000);
    finalized.catch(() => {}); // observed below; avoid an unhandled rejection if submit fails first
    const signed = await signMessageBlob(built.body.transaction.blob, [fulfiller]);
    const t3 = performance.now();
    const sub = await api.post(`/v1/intents/${id}/submit`, { signedTransaction: signed });
    if (sub.status !== 200) throw new Error(`submit ${sub.status} ${JSON.stringify(sub.body).slice(0, 200)}`);
    const t4 = performance.now();
    const t5 = await finalized;
    steps.create.push(t1 - t0);
    steps.build.push(t2 - t1);
    steps.sign.push(t3 - t2);
    steps.submit.push(t4 - t3);
    steps.watch.push(t5 - t4);
    return t5 - t0;
  });
  const lagMs = lag.stop();
  const cpu = process.cpuUsage(cpu0);
  const cpuShare = (cpu.user + cpu.system) / 1e6 / r.seconds;
  const calls = diffCalls(await counters(), before);
  // PayForge's own timestamps (createdAt -> finalizedAt): the part before the webhook leaves.
  const recorded: number[] = [];
  for (const id of ids.filter(Boolean)) {
    const g = await api.get(`/v1/intents/${id}`);
    const it = g.body.intent;
    if (it?.finalizedAt && it?.createdAt) recorded.push(Date.parse(it.finalizedAt) - Date.parse(it.createdAt));
  }
  const stepP50 = Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, pct(v, 50)]));
  return { ...summarize(r, calls), hooks: diffCalls(hooks.counts(), hooksBefore), recorded: { p50: pct(recorded, 50), p99: pct(recorded, 99) }, stepP50, cpuShare, lagMs };
}

const WARMUP = Math.min(N, 2 * CONCURRENCY);
let base: PhaseResult;
let pf: PayForgeResult;
let unexpected: string[] = [];
const hooks = startHooks();
let server: TestServer | null = null;
try {
  // A warm-up pass of each path first (JIT, connections, kit's key import), not counted.
  await runBaseline(WARMUP, 0);
  base = await runBaseline(N, WARMUP);
  server = await startTestServer({
    networks: { [DEVNET_CHAIN]: { rpc: [RPC_URL], pollIntervalMs: POLL_MS, rebroadcastIntervalMs: REBROADCAST_MS } },
    webhooks: { allowPrivateUrls: true },
    rateLimit: { perSecond: 1_000_000_000, burst: 1_000_000_000 },
  });
  const { key, accountId } = server.account({ plan: 'pro' });
  await server.setEndpoint(accountId, 'test', hooks.url);
  const api = server.api(key);
  await runPayForge(api, hooks, WARMUP, 0);
  pf = await runPayForge(api, hooks, N, WARMUP);
  unexpected = (await controlCall<{ unexpected: string[] }>('/counters')).unexpected;
} finally {
  await server?.stop();
  await hooks.close();
  await controlCall('/stop').catch(() => {});
  child.stdin.end();
  await child.exited;
}

const ms = (x: number) => x.toFixed(0);
const ratio = pf.perSecond / base.perSecond;
const date = isoNow();
const md = [
  `Run ${date} · ${machine()}`,
  `Local Solana: LiteSVM behind test/support's JSON-RPC server in its own process (chain-proc.ts), ${SLOT_MS} ms slots, finalized = 4 blocks behind the tip. ` +
    `N = ${N} after a warm-up of ${WARMUP} per path, ${CONCURRENCY} in flight, ${FULFILLERS} funded fulfillers, ${REQUESTORS} requestors with existing token accounts (rent 0). ` +
    `PayForge watcher poll ${POLL_MS} ms, rebroadcast ${REBROADCAST_MS} ms; the baseline polls getSignatureStatuses every ${POLL_MS} ms per transfer.`,
  '',
  '| path | done | intents/s | p50 ms | p99 ms | max ms | RPC calls / intent | errors |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  `| local runtime send-and-confirm (baseline): getLatestBlockhash, sign, sendTransaction, poll to finalized | ${base.ok}/${base.n} | ${base.perSecond.toFixed(1)} | ${ms(base.p50)} | ${ms(base.p99)} | ${ms(base.max)} | ${(sum(base.calls) / base.n).toFixed(2)} | ${base.errors.length} |`,
  `| PayForge create -> build -> sign -> submit -> intent.finalized webhook | ${pf.ok}/${pf.n} | ${pf.perSecond.toFixed(1)} | ${ms(pf.p50)} | ${ms(pf.p99)} | ${ms(pf.max)} | ${(sum(pf.calls) / pf.n).toFixed(2)} | ${pf.errors.length} |`,
  '',
  `PayForge / baseline: **${(ratio * 100).toFixed(1)} %** (intents/s). ` +
    `PayForge process (server, driver, receiver) during the run: ${(pf.cpuShare * 100).toFixed(0)} % of one core, event-loop lag p50 ${ms(pf.lagMs.p50)} ms, p99 ${ms(pf.lagMs.p99)} ms, max ${ms(pf.lagMs.max)} ms. ` +
    `PayForge steps, p50 ms: create ${ms(pf.stepP50.create)}, build ${ms(pf.stepP50.build)}, sign ${ms(pf.stepP50.sign)}, submit ${ms(pf.stepP50.submit)}, submit answered -> intent.finalized webhook ${ms(pf.stepP50.watch)}. ` +
    `PayForge's own createdAt -> finalizedAt: p50 ${ms(pf.recorded.p50)} ms, p99 ${ms(pf.recorded.p99)} ms. ` +
    `Webhooks received: ${Object.entries(pf.hooks).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
  '',
  ...callsTable(pf.n, pf.calls, base.calls, base.n),
].join('\n');

console.log(md);
console.log(`\nBENCH_RESULT ${JSON.stringify({ date, n: N, concurrency: CONCURRENCY, slotMs: SLOT_MS, pollMs: POLL_MS, baseline: { ...base, errors: base.errors.length }, payforge: { ...pf, errors: pf.errors.length }, ratio })}`);

if (unexpected.length > 0) base.errors.push(`unserved RPC methods called: ${[...new Set(unexpected)].join(', ')}`);
const failures = [...base.errors.map((e) => `baseline ${e}`), ...pf.errors.map((e) => `PayForge ${e}`)];
if (WRITE && failures.length === 0) console.log(`\nwritten to ${writeResults('lifecycle-solana', md)}`);
if (failures.length > 0) {
  console.error(failures.slice(0, 20).join('\n'));
  process.exit(1);
}
process.exit(0);
