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
// until finalized. Wallet-sends path, per intent: POST /v1/intents -> a Solana Pay wallet composes
// the transfer from `paymentUri` alone (parsed by @solana/pay, the reference as a read-only key),
// signs and sends it itself (no build, no submit) -> PayForge's detector finds it -> the
// intent.finalized webhook.
//
// Usage: bun bench/lifecycle-solana/run.ts [--write]   (--write records the run in bench/RESULTS.md)
// Env: BENCH_N (200), BENCH_CONCURRENCY (32), BENCH_SLOT_MS (20), BENCH_POLL_MS (100),
//      BENCH_REBROADCAST_MS (2000), BENCH_FULFILLERS (8), BENCH_REQUESTORS (8), BENCH_TIMEOUT_S (90)
import {
  address,
  appendTransactionMessageInstructions,
  createSolanaRpc,
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
import type { ApiClient, TestServer } from '../../test/support/server';
import { firstLine } from '../support/child';
import { env } from '../support/env';
import { finish } from '../support/finish';
import { hardStop } from '../support/guard';
import { startHooks, type Hooks } from '../support/hooks';
import { buildSignSubmit, runPayForge, type PayForgePhase, type PayForgeResult } from '../support/payforge-phase';
import { benchApi, startBenchServer } from '../support/payforge-server';
import { summarize, warmThenMeasure, type PhaseResult } from '../support/phase';
import { pool } from '../support/pool';
import { isoNow, lifecycleReport } from '../support/report';
import { diffCalls } from '../support/rpc-calls';
import { until } from '../support/until';
import { paySolanaPay } from '../support/wallets';

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

hardStop('bench/lifecycle-solana', TIMEOUT_S);

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
const payforge = (api: ApiClient, hooks: Hooks): PayForgePhase => ({
  api,
  hooks,
  concurrency: CONCURRENCY,
  counters,
  intent: (i) => ({ chain: DEVNET_CHAIN, token: 'USDC', amount: decimal(baseUnits(i, 0)), requestor: requestors[i % REQUESTORS]!.address }),
  pay: (id, i) => {
    const fulfiller = fulfillers[i % FULFILLERS]!;
    return buildSignSubmit(api, id, fulfiller.address, (blob) => signMessageBlob(blob, [fulfiller]));
  },
});

// --- PayForge, wallet sends: create -> the wallet pays paymentUri itself -> detected -> webhook ---
const solRpc = createSolanaRpc(RPC_URL);
const walletSends = (api: ApiClient, hooks: Hooks): PayForgePhase => ({
  api,
  hooks,
  concurrency: CONCURRENCY,
  counters,
  intent: (i) => ({ chain: DEVNET_CHAIN, token: 'USDC', amount: decimal(baseUnits(i, 1_000_000)), requestor: requestors[i % REQUESTORS]!.address }),
  pay: async (_id, i, intent) => {
    const t = performance.now();
    await paySolanaPay(solRpc, fulfillers[i % FULFILLERS]!, intent.paymentUri, DECIMALS);
    return { buildMs: 0, builtAt: t, signedAt: t };
  },
});

const WARMUP = Math.min(N, 2 * CONCURRENCY);
let base: PhaseResult;
let pf: PayForgeResult;
let ws: PayForgeResult;
let unexpected: string[] = [];
const hooks = startHooks();
let server: TestServer | null = null;
try {
  // A warm-up pass of each path first (JIT, connections, kit's key import), not counted.
  base = await warmThenMeasure(runBaseline, WARMUP, N);
  server = await startBenchServer({ [DEVNET_CHAIN]: { rpc: [RPC_URL], pollIntervalMs: POLL_MS, rebroadcastIntervalMs: REBROADCAST_MS } });
  const phase = payforge(await benchApi(server, hooks.url), hooks);
  pf = await warmThenMeasure((n, offset) => runPayForge(phase, n, offset), WARMUP, N);
  const wallet = walletSends(phase.api, hooks);
  ws = await warmThenMeasure((n, offset) => runPayForge(wallet, n, offset), WARMUP, N);
  unexpected = (await controlCall<{ unexpected: string[] }>('/counters')).unexpected;
} finally {
  await server?.stop();
  await hooks.close();
  await controlCall('/stop').catch(() => {});
  child.stdin.end();
  await child.exited;
}

const ratio = pf.perSecond / base.perSecond;
const date = isoNow();
const md = lifecycleReport({
  date,
  setup:
    `Local Solana: LiteSVM behind test/support's JSON-RPC server in its own process (chain-proc.ts), ${SLOT_MS} ms slots, finalized = 4 blocks behind the tip. ` +
    `N = ${N} after a warm-up of ${WARMUP} per path, ${CONCURRENCY} in flight, ${FULFILLERS} funded fulfillers, ${REQUESTORS} requestors with existing token accounts (rent 0). ` +
    `PayForge watcher poll ${POLL_MS} ms, rebroadcast ${REBROADCAST_MS} ms; the baseline polls getSignatureStatuses every ${POLL_MS} ms per transfer.`,
  baseline: 'local runtime send-and-confirm (baseline): getLatestBlockhash, sign, sendTransaction, poll to finalized',
  base,
  pf,
  wallet: { label: 'PayForge wallet sends: create -> Solana Pay wallet pays paymentUri itself (no build, no submit) -> detected -> intent.finalized webhook', result: ws },
  lagMax: true,
});

console.log(md);
console.log(`\nBENCH_RESULT ${JSON.stringify({ date, n: N, concurrency: CONCURRENCY, slotMs: SLOT_MS, pollMs: POLL_MS, baseline: { ...base, errors: base.errors.length }, payforge: { ...pf, errors: pf.errors.length }, walletSends: { ...ws, errors: ws.errors.length }, ratio })}`);

if (unexpected.length > 0) base.errors.push(`unserved RPC methods called: ${[...new Set(unexpected)].join(', ')}`);
finish('lifecycle-solana', md, base, pf, WRITE, ws);
