// bench/detection: what payment detection (contract 11) costs as open intents grow. One server
// watches Base Sepolia (anvil) and Solana devnet (the local LiteSVM chain in its own process), each
// behind a counting JSON-RPC proxy in its own process. Open intents are created in steps
// (BENCH_STEPS, default 10,100,1000,10000 per network) on BENCH_REQUESTORS (10) requestors; at each
// step, after a settle period, the detectors' RPC traffic is counted over BENCH_WINDOW_S seconds
// with nothing being paid: calls per poll by method (EVM polls = its eth_blockNumber calls, one per
// poll; Solana polls = HTTP requests, one batch per idle poll) and PayForge's CPU share. Then one
// intent is paid by a wallet from `paymentUri` alone (no build, no submit) and the time until
// PayForge shows it pending is taken. The first step (10 intents) is the same-run baseline.
//
// Usage: bun bench/detection/run.ts [--write]   (--write records the run in bench/RESULTS.md)
// Env: BENCH_STEPS (10,100,1000,10000), BENCH_REQUESTORS (10), BENCH_WINDOW_S (5),
//      BENCH_POLL_MS (200), BENCH_BLOCK_TIME (0.5), BENCH_SLOT_MS (40), BENCH_TIMEOUT_S (400)
import { join } from 'node:path';
import { createSolanaRpc, generateKeyPairSigner } from '@solana/kit';
import { createWalletClient, defineChain, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEV_KEYS, startAnvil } from '../../test/support/evm/anvil';
import { deployToken } from '../../test/support/evm/token';
import { DEVNET_CHAIN, DEVNET_USDC_MINT } from '../../test/support/solana/local-solana';
import type { ApiClient, TestServer } from '../../test/support/server';
import { firstLine } from '../support/child';
import { env } from '../support/env';
import { hardStop } from '../support/guard';
import { machine } from '../support/machine';
import { startBenchServer } from '../support/payforge-server';
import { pool } from '../support/pool';
import { isoNow } from '../support/report';
import { diffCalls, sum } from '../support/rpc-calls';
import { writeResults } from '../support/results-md';
import { until } from '../support/until';
import { payEip681, paySolanaPay } from '../support/wallets';

const STEPS = (process.env.BENCH_STEPS ?? '10,100,1000,10000').split(',').map(Number);
const REQUESTORS = env('BENCH_REQUESTORS', 10);
const WINDOW_S = env('BENCH_WINDOW_S', 5);
const POLL_MS = env('BENCH_POLL_MS', 200);
const BLOCK_TIME = env('BENCH_BLOCK_TIME', 0.5);
const SLOT_MS = env('BENCH_SLOT_MS', 40);
const TIMEOUT_S = env('BENCH_TIMEOUT_S', 400);
const WRITE = process.argv.includes('--write');
const EVM = 'eip155:84532';

hardStop('bench/detection', TIMEOUT_S);

type Counters = { calls: Record<string, number>; http: number };
const spawnChild = (file: string, arg: unknown) =>
  Bun.spawn([process.execPath, join(import.meta.dir, '..', file), JSON.stringify(arg)], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' });

// --- chains and their counting proxies (each its own process) --------------------------------
const anvil = await startAnvil('base', ['--block-time', String(BLOCK_TIME)]);
const solProc = spawnChild('lifecycle-solana/chain-proc.ts', { slotMs: SLOT_MS, maxSeconds: TIMEOUT_S + 60 });
const { rpc: SOL_URL, control: SOL_CONTROL } = await firstLine(solProc.stdout);
const evmProxy = spawnChild('lifecycle-evm/proxy-proc.ts', { target: anvil.url, maxSeconds: TIMEOUT_S + 60 });
const solProxy = spawnChild('lifecycle-evm/proxy-proc.ts', { target: SOL_URL, maxSeconds: TIMEOUT_S + 60 });
const evmCounting = await firstLine<{ url: string; control: string }>(evmProxy.stdout);
const solCounting = await firstLine<{ url: string; control: string }>(solProxy.stdout);
const countersOf = async (control: string): Promise<Counters> => (await (await fetch(`${control}/counters`)).json()) as Counters;

// --- parties: requestors on both networks, one funded payer on each ---------------------------
const evmPayer = privateKeyToAccount(DEV_KEYS[3]!);
const usdc = await deployToken(anvil, { [evmPayer.address]: 1_000_000_000_000n });
const evmRequestors: Hex[] = Array.from({ length: REQUESTORS }, () => privateKeyToAccount(generatePrivateKey()).address);
const solPayer = await generateKeyPairSigner();
const solRequestors = await Promise.all(Array.from({ length: REQUESTORS }, () => generateKeyPairSigner()));
const setup = await fetch(`${SOL_CONTROL}/setup`, {
  method: 'POST',
  body: JSON.stringify({ mint: DEVNET_USDC_MINT, decimals: 6, fund: [solPayer.address], merchants: solRequestors.map((r) => r.address) }),
});
if (!setup.ok) throw new Error(`solana setup: ${setup.status}`);

const chain = defineChain({ id: 84532, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.url] } } });
const evmWallet = createWalletClient({ account: evmPayer, chain, transport: http(anvil.url) });
const solRpc = createSolanaRpc(SOL_URL);

interface Row {
  family: 'EVM (Base Sepolia, anvil)' | 'Solana (devnet, LiteSVM)';
  open: number;
  polls: number;
  perPoll: Record<string, number>;
  httpPerPoll: number;
  cpuShare: number;
  detectMs: number;
}

let server: TestServer | null = null;
const rows: Row[] = [];
try {
  server = await startBenchServer({
    [EVM]: { rpc: [evmCounting.url], pollIntervalMs: POLL_MS, tokens: { USDC: { address: usdc, decimals: 6 } } },
    [DEVNET_CHAIN]: { rpc: [solCounting.url], pollIntervalMs: POLL_MS },
  });
  const api: ApiClient = server.api((await server.account({ plan: 'pro' })).key);
  const created = { evm: [] as Array<{ id: string; paymentUri: string }>, sol: [] as Array<{ id: string; paymentUri: string }> };

  // Distinct amounts (1.000001, 1.000002, …): every intent is matchable on its own.
  const createUpTo = async (family: 'evm' | 'sol', k: number) => {
    const list = created[family];
    const from = list.length;
    const r = await pool(k - from, 32, async (j) => {
      const n = from + j;
      const body = family === 'evm'
        ? { chain: EVM, token: 'USDC', amount: `1.${String(n + 1).padStart(6, '0')}`, requestor: evmRequestors[n % REQUESTORS], ttlSeconds: 604800 }
        : { chain: DEVNET_CHAIN, token: 'USDC', amount: `1.${String(n + 1).padStart(6, '0')}`, requestor: solRequestors[n % REQUESTORS]!.address, ttlSeconds: 604800 };
      const res = await api.post('/v1/intents', body);
      if (res.status !== 201) throw new Error(`create ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      list[n] = { id: res.body.intent.id, paymentUri: res.body.intent.paymentUri };
    });
    if (r.errors.length > 0) throw new Error(r.errors.slice(0, 3).join('\n'));
  };

  for (const k of STEPS) {
    if (k > 999_999) throw new Error('amounts 1.000001.. give at most 999999 distinct intents');
    await Promise.all([createUpTo('evm', k), createUpTo('sol', k)]);
    await Bun.sleep(2 * POLL_MS + 1000); // new receivers' first look-back scans, then steady polling
    const before = { evm: await countersOf(evmCounting.control), sol: await countersOf(solCounting.control) };
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Bun.sleep(WINDOW_S * 1000);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuShare = (cpu.user + cpu.system) / 1e6 / seconds;
    const after = { evm: await countersOf(evmCounting.control), sol: await countersOf(solCounting.control) };

    for (const family of ['evm', 'sol'] as const) {
      const calls = diffCalls(after[family].calls, before[family].calls);
      const httpN = after[family].http - before[family].http;
      const polls = family === 'evm' ? (calls.eth_blockNumber ?? 0) : httpN;
      // One payment from paymentUri alone: how long until PayForge shows it.
      const target = created[family][k - 1]!;
      const ts = performance.now();
      await (family === 'evm' ? payEip681(evmWallet, target.paymentUri) : paySolanaPay(solRpc, solPayer, target.paymentUri, 6));
      await until(async () => (await api.get(`/v1/intents/${target.id}`)).body.intent.state !== 'created', 30_000, 10, `detection of ${target.id}`);
      rows.push({
        family: family === 'evm' ? 'EVM (Base Sepolia, anvil)' : 'Solana (devnet, LiteSVM)',
        open: k,
        polls,
        perPoll: Object.fromEntries(Object.entries(calls).map(([m, v]) => [m, v / Math.max(1, polls)])),
        httpPerPoll: httpN / Math.max(1, polls),
        cpuShare,
        detectMs: performance.now() - ts,
      });
      console.error(`${family} ${k}: ${polls} polls, ${(sum(calls) / Math.max(1, polls)).toFixed(2)} calls/poll, detected in ${rows.at(-1)!.detectMs.toFixed(0)} ms`);
    }
  }
} finally {
  await server?.stop().catch(() => {});
  for (const p of [evmProxy, solProxy]) p.stdin.end();
  await fetch(`${SOL_CONTROL}/stop`).catch(() => {});
  solProc.stdin.end();
  await Promise.all([evmProxy.exited, solProxy.exited, solProc.exited]);
  await anvil.stop();
}

const f2 = (x: number) => x.toFixed(2);
const methods = (family: Row['family']) => [...new Set(rows.filter((r) => r.family === family).flatMap((r) => Object.keys(r.perPoll)))].sort();
const tables = (['EVM (Base Sepolia, anvil)', 'Solana (devnet, LiteSVM)'] as const).flatMap((family) => {
  const ms = methods(family);
  return [
    `**${family}**`,
    '',
    `| open intents | polls in ${WINDOW_S} s | ${ms.join(' | ')} | **RPC calls / poll** | HTTP requests / poll | PayForge CPU (one core) | paid -> pending, ms |`,
    `|---:|---:|${ms.map(() => '---:|').join('')}---:|---:|---:|---:|`,
    ...rows
      .filter((r) => r.family === family)
      .map((r) => `| ${r.open} | ${r.polls} | ${ms.map((m) => f2(r.perPoll[m] ?? 0)).join(' | ')} | **${f2(sum(r.perPoll))}** | ${f2(r.httpPerPoll)} | ${(r.cpuShare * 100).toFixed(0)} % | ${r.detectMs.toFixed(0)} |`),
    '',
  ];
});
const md = [
  `Run ${isoNow()} · ${machine()}`,
  `One PayForge server watching both networks, detector poll ${POLL_MS} ms, each upstream behind a counting proxy in its own process; ` +
    `anvil --block-time ${BLOCK_TIME}, local Solana ${SLOT_MS} ms slots. Open intents (TTL 7 days, distinct amounts) on ${REQUESTORS} requestors per network; ` +
    `nothing is paid during the ${WINDOW_S} s window. The first row (${STEPS[0]} open intents) is the same-run baseline. ` +
    '"paid -> pending": a wallet pays the newest intent from `paymentUri` alone (no build, no submit), timed from its send to PayForge showing it pending.',
  '',
  ...tables,
].join('\n');
console.log(md);
if (WRITE) console.log(`\nwritten to ${writeResults('detection', md)}`);
process.exit(0);
