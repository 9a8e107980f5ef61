// bench/create: POST /v1/intents requests/s and latency at 64 connections, against Bun's own
// hello-world server measured in the same run. The load generator is a separate process (wrk if
// installed, else bench/create/load.ts) so it does not share the server's event loop.
// Usage: bun bench/create/run.ts [--write]   (--write records the run in bench/RESULTS.md)
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { threadCpuUs as threadCpuByKind } from '../support/proc-cpu';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from 'bun:sqlite';
import { validate } from '../../src/config';
import { DEFAULT_CONFIG, type Config } from '../../src/config.types';
import { startServer } from '../../src/server';
import { openDb } from '../../src/store/db';
import { setEndpoint } from '../../src/webhooks/set-endpoint';
import { firstLine } from '../support/child';
import { env } from '../support/env';
import { machine } from '../support/machine';
import { writeResults } from '../support/results-md';
import { startTimeline, type TimelineSummary } from '../support/timeline';
import { createRepos } from '../../src/store/repos';
import { statesTagged } from '../../machines/judge';
import { webhookServices } from '../../src/webhooks/services';

const SECONDS = env('BENCH_SECONDS', 10);
const WARMUP = env('BENCH_WARMUP_SECONDS', 3);
const CONNECTIONS = env('BENCH_CONNECTIONS', 64);
const THREADS = env('BENCH_THREADS', 2);
// Rounds of (hello-world, PayForge), alternated: this VM's speed drifts by ±20 % within minutes,
// so one pair can land on a slow or a fast minute. The report is the round with the median ratio,
// beside every round's figures.
const ROUNDS = env('BENCH_ROUNDS', 1);
const which = Bun.which('wrk');
const LOADGEN = (process.env.BENCH_LOADGEN ?? (which ? 'wrk' : 'bun')) as 'wrk' | 'bun';
if (LOADGEN === 'wrk' && !which) throw new Error('BENCH_LOADGEN=wrk but wrk is not on PATH');
const WRITE = process.argv.includes('--write');
// BENCH_BASELINE=0 skips the hello-world run (for `bun --cpu-prof` of the server alone).
const BASELINE = process.env.BENCH_BASELINE !== '0';
const HERE = import.meta.dir;
// BENCH_WRITER=1 writes creates on serve's intent writer thread (config sqlite.writerThread, off by default), for an A/B of the same tree.
const WRITER_THREAD = process.env.BENCH_WRITER === '1';
// After the run, how long the deliveries still queued take to be sent (no more creates), up to this long.
const CATCH_UP_SECONDS = env('BENCH_CATCHUP_SECONDS', 60);

const BODY = JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '12.34', requestor: '0x1111111111111111111111111111111111111111' });

interface LoadResult {
  /** CPU time (user + system) of this process, which hosts the server, during the run. */
  server_cpu_us?: number;
  /** The same for its main thread alone (the event loop; the rest: WAL syncs, checkpoints, the dispatcher's thread). */
  main_cpu_us?: number;
  /** Its Worker threads (dispatcher, intent writer, checkpointer), and its other threads (JIT, GC, I/O pool). */
  worker_cpu_us?: number;
  /** Of those: the webhook dispatcher's thread and the checkpointer's (named threads; NaN when unnamed). */
  dispatch_cpu_us?: number;
  checkpoint_cpu_us?: number;
  /** The dispatcher thread's read and write system calls (SQLite's page reads and WAL writes) and bytes read. */
  dispatch_io?: { reads: number; writes: number; readBytes: number };
  other_cpu_us?: number;
  /** Time the main thread was ready to run but waited for a core (schedstat), and how often it was preempted. */
  main_wait_us?: number;
  main_preempted?: number;
  requests: number;
  duration_us: number;
  ok: number;
  bad: number;
  socket_errors: number;
  p50_us: number;
  p90_us: number;
  p99_us: number;
  max_us: number;
  mean_us: number;
  sample: string;
}

interface Target {
  url: string;
  path: string;
  auth: string | null;
  expect: number;
}

/** CPU time of this process's main thread (tid = pid) in µs, from /proc (clock ticks of 10 ms); NaN elsewhere. */
function mainThreadCpuUs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1e6) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU µs of this process's threads by kind: the event loop (the main thread), Workers (the webhook
 * dispatcher's, the intent writer's, the checkpointer's: Bun names them all `Worker`), and the rest
 * (JIT, GC helpers, the I/O pool that runs the WAL fdatasyncs).
 */
function threadCpuUs(): { main: number; workers: number; other: number; dispatch: number; checkpoint: number } {
  const t = threadCpuByKind((c) => c === 'Worker' || c.startsWith('pf-'));
  return { main: t.main, workers: t.named, other: t.other, dispatch: t.byName.get('pf-dispatch') ?? Number.NaN, checkpoint: t.byName.get('pf-checkpoint') ?? Number.NaN };
}

/** Read and write system calls (pread, pwrite, ...; not socket sends/receives) of the thread named `comm`, from /proc; NaN when none. */
function threadIo(comm: string): { reads: number; writes: number; readBytes: number } {
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      if (readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() !== comm) continue;
      const io = readFileSync(`/proc/self/task/${tid}/io`, 'utf8');
      const f = (k: string) => Number(new RegExp(`^${k}: (\\d+)`, 'm').exec(io)?.[1] ?? Number.NaN);
      return { reads: f('syscr'), writes: f('syscw'), readBytes: f('rchar') };
    }
  } catch {
    // not Linux
  }
  return { reads: Number.NaN, writes: Number.NaN, readBytes: Number.NaN };
}

/** The main thread's time runnable but waiting for a core (µs, /proc schedstat) and its involuntary context switches; NaN elsewhere. */
function mainThreadWaits(): { waitUs: number; preempted: number } {
  try {
    const sched = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ');
    const status = readFileSync(`/proc/self/task/${process.pid}/status`, 'utf8');
    const preempted = Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
    return { waitUs: Number(sched[1]) / 1000, preempted };
  } catch {
    return { waitUs: Number.NaN, preempted: Number.NaN };
  }
}

async function load(t: Target, seconds: number): Promise<LoadResult> {
  let cmd: string[];
  let childEnv: Record<string, string | undefined> = { ...process.env };
  if (LOADGEN === 'wrk') {
    const threads = Math.min(THREADS, CONNECTIONS);
    cmd = [which!, `-t${threads}`, `-c${CONNECTIONS}`, `-d${seconds}s`, '--timeout', '10s', '-s', join(HERE, 'wrk.lua'), `${t.url}${t.path}`];
    childEnv = { ...childEnv, BENCH_METHOD: 'POST', BENCH_PATH: t.path, BENCH_BODY: BODY, BENCH_AUTH: t.auth ?? '', BENCH_EXPECT: String(t.expect) };
  } else {
    const spec = { url: `${t.url}${t.path}`, method: 'POST', body: BODY, auth: t.auth, expect: t.expect, connections: CONNECTIONS, seconds };
    cmd = [process.execPath, join(HERE, 'load.ts'), JSON.stringify(spec)];
  }
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuUs();
  const th0 = threadCpuUs();
  const io0 = threadIo('pf-dispatch');
  const waits0 = mainThreadWaits();
  const proc = Bun.spawn(cmd, { env: childEnv, stdout: 'pipe', stderr: 'pipe' });
  // The load generator stops by itself after `seconds`; this is only a guard against a hang.
  const guard = setTimeout(() => proc.kill('SIGKILL'), (seconds + 30) * 1000);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(guard);
  const line = out.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (code !== 0 || !line) throw new Error(`load generator failed (exit ${code}):\n${out}\n${err}`);
  const cpu = process.cpuUsage(cpu0);
  const th1 = threadCpuUs();
  const io1 = threadIo('pf-dispatch');
  const waits1 = mainThreadWaits();
  return {
    ...(JSON.parse(line.slice('BENCH_JSON '.length)) as LoadResult),
    server_cpu_us: cpu.user + cpu.system,
    main_cpu_us: mainThreadCpuUs() - main0,
    worker_cpu_us: th1.workers - th0.workers,
    dispatch_cpu_us: th1.dispatch - th0.dispatch,
    checkpoint_cpu_us: th1.checkpoint - th0.checkpoint,
    dispatch_io: { reads: io1.reads - io0.reads, writes: io1.writes - io0.writes, readBytes: io1.readBytes - io0.readBytes },
    other_cpu_us: th1.other - th0.other,
    main_wait_us: waits1.waitUs - waits0.waitUs,
    main_preempted: waits1.preempted - waits0.preempted,
  };
}

const optional = ['payforge_commit_gate_waits_total', 'payforge_commit_gate_wait_seconds_total', 'payforge_writer_batches_total', 'payforge_writer_writes_total'];

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = new RegExp(`^${name} ([\\d.e+-]+)`, 'm').exec(text);
  if (!m) {
    // Absent on a server without it (an older tree in an A/B run): 0.
    if (optional.includes(name)) return 0;
    throw new Error(`metric ${name} missing`);
  }
  return Number(m[1]);
}

const rps = (r: LoadResult) => r.requests / (r.duration_us / 1e6);
const ms = (us: number) => (us / 1000).toFixed(2);
const errors = (r: LoadResult) => r.bad + r.socket_errors;
// Server CPU per request: far steadier than requests/s when other work shares the machine.
const cpuPerReq = (r: LoadResult) => ((r.server_cpu_us ?? 0) / Math.max(1, r.requests)).toFixed(0);

// --- baseline: Bun's hello-world, the same request on the wire, a small JSON answer ---------
async function runBaseline(): Promise<LoadResult> {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.json({ status: 'ok' }) });
  try {
    const t: Target = { url: `http://127.0.0.1:${server.port}`, path: '/', auth: null, expect: 200 };
    await load(t, WARMUP);
    return await load(t, SECONDS);
  } finally {
    await server.stop(true);
  }
}

// --- PayForge: the real server on a temp database ----------------------------------------------
// As a user runs it: a webhook endpoint is configured, so every create also queues its
// intent.created delivery and the dispatcher sends it (to a receiver in its own process).
async function runPayForge(): Promise<{ r: LoadResult; timeline: TimelineSummary; batches: number; writes: number; writerBatches: number; writerWrites: number; syncs: number; gateWaits: number; gateWaitMs: number; rows: number; created201: number; sentAtEnd: number; sentRun: number; catchUpMs: number; lag: { p50: number; p99: number; max: number }; delivered: number; bytesPerIntent: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'payforge-bench-'));
  const db = join(dir, 'payforge.db');
  const base = structuredClone(DEFAULT_CONFIG);
  const config: Config = validate({
    ...base,
    port: 0,
    db,
    logLevel: 'error',
    rateLimit: { perSecond: 1_000_000_000, burst: 1_000_000_000 },
    webhooks: { ...base.webhooks, allowPrivateUrls: true },
  });
  const receiver = Bun.spawn([process.execPath, join(HERE, '../webhooks/receiver-proc.ts'), '1'], { stdout: 'pipe', stderr: 'inherit' });
  const [receiverPort] = await firstLine<number[]>(receiver.stdout);
  const server = await startServer(config, { bootstrap: true, writerThread: WRITER_THREAD });
  try {
    const side = openDb(db);
    await setEndpoint(webhookServices(createRepos(side, { live: statesTagged('live'), watching: statesTagged('watching') }), config), { accountId: server.bootstrapAccount!, mode: 'test' }, { url: `http://127.0.0.1:${receiverPort}/hook` });
    const t: Target = { url: server.url, path: '/v1/intents', auth: `Bearer ${server.bootstrapKey}`, expect: 201 };
    const warm = await load(t, WARMUP);
    if (errors(warm) > 0) throw new Error(`warm-up errors: ${errors(warm)} (${warm.sample})`);
    const b0 = await metric(server.url, 'payforge_commit_batches_total');
    const w0 = await metric(server.url, 'payforge_commit_writes_total');
    const s0 = await metric(server.url, 'payforge_commit_syncs_total');
    const g0 = await metric(server.url, 'payforge_commit_gate_waits_total');
    const gs0 = await metric(server.url, 'payforge_commit_gate_wait_seconds_total');
    const wb0 = await metric(server.url, 'payforge_writer_batches_total');
    const ww0 = await metric(server.url, 'payforge_writer_writes_total');
    const d0 = await metric(server.url, 'payforge_webhook_delivered_total');
    // The server shares this process: its event loop's lag and its own spans, over the run.
    const tl = startTimeline();
    const runStart = Date.now();
    const r = await load(t, SECONDS);
    const timeline = tl.stop();
    const b1 = await metric(server.url, 'payforge_commit_batches_total');
    const w1 = await metric(server.url, 'payforge_commit_writes_total');
    const s1 = await metric(server.url, 'payforge_commit_syncs_total');
    const g1 = await metric(server.url, 'payforge_commit_gate_waits_total');
    const gs1 = await metric(server.url, 'payforge_commit_gate_wait_seconds_total');
    const wb1 = await metric(server.url, 'payforge_writer_batches_total');
    const ww1 = await metric(server.url, 'payforge_writer_writes_total');
    // Deliveries are asynchronous: how many were sent by the end of the run, then how long the
    // rest took once creates stopped (the dispatcher's counter, published by its thread every tick).
    const created201 = warm.ok + r.ok;
    const sentAtEnd = await metric(server.url, 'payforge_webhook_delivered_total');
    const c0 = performance.now();
    // Every delivery queued (creates the load generator stopped waiting for included), read beside the server.
    const queued = side.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM webhook_deliveries').get()!.n;
    let sent = sentAtEnd;
    while (sent < queued && performance.now() - c0 < CATCH_UP_SECONDS * 1000) {
      await Bun.sleep(20);
      sent = await metric(server.url, 'payforge_webhook_delivered_total');
    }
    const catchUpMs = sent >= queued ? performance.now() - c0 : Number.NaN;
    side.close();
    await server.stop();
    // Every 201 must be a committed row: count them through a fresh connection after shutdown.
    const check = new Database(db);
    const rows = (check.query('SELECT count(*) AS n FROM intents').get() as { n: number }).n;
    const delivered = (check.query("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'delivered'").get() as { n: number }).n;
    // How late the run's deliveries were: their row's commit -> sent (ms), over those queued during the timed run.
    const lags = check
      .query<{ ms: number }, [number]>("SELECT delivered_at - created_at AS ms FROM webhook_deliveries WHERE status = 'delivered' AND created_at >= ? ORDER BY ms")
      .all(runStart)
      .map((x) => x.ms);
    const lagAt = (p: number) => lags[Math.min(lags.length - 1, Math.floor(p * lags.length))] ?? Number.NaN;
    const lag = { p50: lagAt(0.5), p99: lagAt(0.99), max: lags.at(-1) ?? Number.NaN };
    // Bytes on disk per created intent: its row and indexes, its intent.created event and delivery.
    check.run('PRAGMA wal_checkpoint(TRUNCATE)');
    const { page_count: pages } = check.query('PRAGMA page_count').get() as { page_count: number };
    const { page_size: pageSize } = check.query('PRAGMA page_size').get() as { page_size: number };
    check.close();
    return { r, timeline, batches: b1 - b0, writes: w1 - w0, writerBatches: wb1 - wb0, writerWrites: ww1 - ww0, syncs: s1 - s0, gateWaits: g1 - g0, gateWaitMs: (gs1 - gs0) * 1000, rows, created201, sentAtEnd, sentRun: sentAtEnd - d0, catchUpMs, lag, delivered, bytesPerIntent: (pages * pageSize) / Math.max(1, rows) };
  } finally {
    await server.stop().catch(() => {});
    receiver.kill('SIGTERM');
    await receiver.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const EMPTY: LoadResult = { requests: 1, duration_us: 1, ok: 0, bad: 0, socket_errors: 0, p50_us: 0, p90_us: 0, p99_us: 0, max_us: 0, mean_us: 0, sample: '' };
const rounds: { base: LoadResult; pf: Awaited<ReturnType<typeof runPayForge>> }[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push({ base: BASELINE ? await runBaseline() : EMPTY, pf: await runPayForge() });
const ratioOf = (x: (typeof rounds)[number]) => rps(x.pf.r) / rps(x.base);
const median = [...rounds].sort((a, b) => ratioOf(a) - ratioOf(b))[(rounds.length - 1) >> 1]!;
const { base, pf } = median;
const roundsLine =
  rounds.length < 2
    ? ''
    : `Rounds (hello-world then PayForge, alternated; the table is the median round): ${rounds
        .map((x, i) => `${i + 1}: ${rps(x.base).toFixed(0)} / ${rps(x.pf.r).toFixed(0)} req/s = ${(ratioOf(x) * 100).toFixed(1)} %, p99 ${ms(x.pf.r.p99_us)} ms, loop ${((x.pf.r.main_cpu_us ?? Number.NaN) / Math.max(1, x.pf.r.requests)).toFixed(0)} µs`)
        .join('; ')}.`;

const pfRps = rps(pf.r);
const baseRps = rps(base);
const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const gen = LOADGEN === 'wrk' ? `wrk -t${Math.min(THREADS, CONNECTIONS)} -c${CONNECTIONS}` : `bun load.ts (${CONNECTIONS} fetch loops)`;
const md = [
  `Run ${date} · ${machine()}`,
  `Load: ${gen}, ${WARMUP} s warm-up then ${SECONDS} s${ROUNDS > 1 ? `, ${ROUNDS} rounds` : ''}, POST with the same JSON body to both servers, loopback; the load generator shares the machine's cores with the server. PayForge has a webhook endpoint configured (a receiver in its own process answering 200), so each create queues and sends its intent.created delivery.`,
  '',
  '| server | requests/s | p50 ms | p99 ms | max ms | errors | server CPU µs/request |',
  '|---|---:|---:|---:|---:|---:|---:|',
  `| Bun hello-world (baseline) | ${baseRps.toFixed(0)} | ${ms(base.p50_us)} | ${ms(base.p99_us)} | ${ms(base.max_us)} | ${errors(base)} | ${cpuPerReq(base)} |`,
  `| PayForge POST /v1/intents | ${pfRps.toFixed(0)} | ${ms(pf.r.p50_us)} | ${ms(pf.r.p99_us)} | ${ms(pf.r.max_us)} | ${errors(pf.r)} | ${cpuPerReq(pf.r)} |`,
  '',
  `PayForge / baseline: **${((pfRps / baseRps) * 100).toFixed(1)} %**. ` +
    `Commits: ${(pf.batches / (pf.r.duration_us / 1e6)).toFixed(0)}/s for ${(pf.writes / (pf.r.duration_us / 1e6)).toFixed(0)} writes/s ` +
    `(mean group-commit batch ${(pf.writes / Math.max(1, pf.batches)).toFixed(1)}), of which ${(pf.writerBatches / (pf.r.duration_us / 1e6)).toFixed(0)}/s for ${(pf.writerWrites / (pf.r.duration_us / 1e6)).toFixed(0)} creates/s on the intent writer thread (synchronous=FULL: its fsync on that thread); the event loop's batches made durable by ${(pf.syncs / (pf.r.duration_us / 1e6)).toFixed(0)} WAL fdatasyncs/s off the event loop. ` +
    `Event-loop batches that waited for another thread's transaction (dispatcher, intent writer) before BEGIN (without blocking the loop): ${pf.gateWaits} of ${pf.batches - pf.writerBatches}, ${pf.gateWaitMs.toFixed(0)} ms in all (${(pf.gateWaitMs / Math.max(1, pf.gateWaits)).toFixed(2)} ms each). ` +
    `Server main thread (event loop): ${((pf.r.main_cpu_us ?? Number.NaN) / Math.max(1, pf.r.requests)).toFixed(0)} µs CPU per create (${(((pf.r.main_cpu_us ?? 0) / Math.max(1, pf.r.server_cpu_us ?? 1)) * 100).toFixed(0)} % of the process's); ` +
    `its Worker threads (webhook dispatcher, intent writer, checkpointer) ${((pf.r.worker_cpu_us ?? Number.NaN) / Math.max(1, pf.r.requests)).toFixed(0)} µs (dispatcher ${((pf.r.dispatch_cpu_us ?? Number.NaN) / Math.max(1, pf.r.requests)).toFixed(0)}, checkpointer ${((pf.r.checkpoint_cpu_us ?? Number.NaN) / Math.max(1, pf.r.requests)).toFixed(0)}; dispatcher per delivery sent in the run ${((pf.r.dispatch_cpu_us ?? Number.NaN) / Math.max(1, pf.sentRun)).toFixed(0)} µs, ${((pf.r.dispatch_io?.reads ?? Number.NaN) / Math.max(1, pf.sentRun)).toFixed(2)} reads of ${((pf.r.dispatch_io?.readBytes ?? Number.NaN) / Math.max(1, pf.sentRun) / 1024).toFixed(1)} KiB and ${((pf.r.dispatch_io?.writes ?? Number.NaN) / Math.max(1, pf.sentRun)).toFixed(2)} writes), its other threads (JIT, GC, I/O pool) ${((pf.r.other_cpu_us ?? Number.NaN) / Math.max(1, pf.r.requests)).toFixed(0)} µs. ` +
    `Intent rows after shutdown: ${pf.rows} ≥ ${pf.created201} responses 201 (warm-up + run); intent.created webhooks delivered by then: ${pf.sentAtEnd} at the end of the run (${((pf.sentAtEnd / Math.max(1, pf.rows)) * 100).toFixed(0)} % of the rows), the rest sent ${Number.isNaN(pf.catchUpMs) ? `not within ${CATCH_UP_SECONDS} s` : `${(pf.catchUpMs / 1000).toFixed(2)} s`} after it (no more creates; ${pf.delivered} recorded delivered at shutdown); the run's deliveries, row committed -> sent: p50 ${(pf.lag.p50 / 1000).toFixed(2)} s, p99 ${(pf.lag.p99 / 1000).toFixed(2)} s, max ${(pf.lag.max / 1000).toFixed(2)} s. ` +
    `Database after a TRUNCATE checkpoint: ${pf.bytesPerIntent.toFixed(0)} bytes per created intent (row and indexes, its event and delivery).`,
  '',
  `What held the server back during the run: ${pf.timeline.line}; the event loop's thread waited for a core ${((pf.r.main_wait_us ?? Number.NaN) / 1000).toFixed(0)} ms in all (${(((pf.r.main_wait_us ?? Number.NaN) / pf.r.duration_us) * 100).toFixed(1)} % of the run), preempted ${pf.r.main_preempted ?? Number.NaN} times.`,
  `Longest stalls: ${pf.timeline.worst.join('; ') || 'none ≥ 5 ms'}.`,
  ...(roundsLine ? ['', roundsLine] : []),
].join('\n');

console.log(md);
console.log(`\nBENCH_RESULT ${JSON.stringify({ date, loadgen: LOADGEN, baseline: base, payforge: pf.r, timeline: pf.timeline, ratio: pfRps / baseRps, batches: pf.batches, writes: pf.writes, created: pf.created201, delivered: pf.delivered, rounds: rounds.map((x) => ({ hello: rps(x.base), payforge: rps(x.pf.r), p99_us: x.pf.r.p99_us })) })}`);

const failures: string[] = [];
for (const { base: b, pf: p } of rounds) {
  if (errors(b) > 0) failures.push(`baseline errors: ${errors(b)} (${b.sample})`);
  if (errors(p.r) > 0) failures.push(`PayForge errors: ${errors(p.r)} (${p.r.sample})`);
  if (p.rows < p.created201) failures.push(`only ${p.rows} intent rows for ${p.created201} responses 201`);
}

if (WRITE && failures.length === 0) console.log(`
written to ${writeResults('create', md)}`);

if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
