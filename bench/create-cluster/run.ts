// bench/create on PostgreSQL (issue 12): POST /v1/intents against real `payforge serve` processes,
// one on a SQLite file (the same-run baseline of the default engine), one on PostgreSQL, and three
// on the same PostgreSQL database, plus Bun's hello-world in the same run. Every row is measured
// the same way: spawned serve processes with a webhook endpoint configured (a receiver in its own
// process), wrk as the load generator, CPU read from /proc for every process that served
// (instances, and the PostgreSQL server with its backends).
// Usage: bun bench/create-cluster/run.ts [--write]   (--write records the run in bench/RESULTS.md)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from 'bun:sqlite';
import { SQL } from 'bun';
import { startCluster, type PgCluster } from '../../test/support/postgres-cluster';
import { startInstances } from '../../test/support/instances';
import { firstLine } from '../support/child';
import { env } from '../support/env';
import { machine } from '../support/machine';
import { postgresPids, cpuUs } from '../support/proc-cpu';
import { writeResults } from '../support/results-md';

const SECONDS = env('BENCH_SECONDS', 10);
const WARMUP = env('BENCH_WARMUP_SECONDS', 3);
const CONNECTIONS = env('BENCH_CONNECTIONS', 64);
const WRITE = process.argv.includes('--write');
const HERE = import.meta.dir;
const WRK = Bun.which('wrk');
if (!WRK) throw new Error('bench/create-cluster needs wrk (apt-get install -y wrk): one load generator for every row');

const BODY = JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '12.34', requestor: '0x1111111111111111111111111111111111111111' });

interface LoadResult {
  requests: number;
  duration_us: number;
  ok: number;
  bad: number;
  socket_errors: number;
  p50_us: number;
  p99_us: number;
  max_us: number;
  sample: string;
}

const rps = (r: LoadResult) => r.requests / (r.duration_us / 1e6);

/** wrk with one thread per address (a multiple of them), connections split evenly over threads. */
async function load(addrs: string[], path: string, auth: string | null, expect: number, seconds: number): Promise<LoadResult> {
  const threads = addrs.length === 1 ? 2 : addrs.length;
  const connections = Math.floor(CONNECTIONS / threads) * threads;
  const proc = Bun.spawn([WRK!, `-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', join(HERE, '../create/wrk.lua'), `http://${addrs[0]}${path}`], {
    env: { ...process.env, BENCH_METHOD: 'POST', BENCH_PATH: path, BENCH_BODY: BODY, BENCH_AUTH: auth ?? '', BENCH_EXPECT: String(expect), BENCH_ADDRS: addrs.join(',') },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const guard = setTimeout(() => proc.kill('SIGKILL'), (seconds + 30) * 1000);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(guard);
  const line = out.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}):\n${out}\n${err}`);
  return JSON.parse(line.slice('BENCH_JSON '.length)) as LoadResult;
}

/** CPU µs of these processes between two snapshots (a process that exited in between is not counted). */
function cpuMeter(pids: () => number[]) {
  const before = new Map(pids().map((p) => [p, cpuUs(p)]));
  return () => pids().reduce((sum, p) => sum + Math.max(0, cpuUs(p) - (before.get(p) ?? 0)), 0);
}

interface Row {
  name: string;
  r: LoadResult;
  instanceCpuUs: number;
  pgCpuUs: number | null;
  created201: number;
  rows: number;
  delivered: number;
}

async function runHello(): Promise<Row> {
  const server = Bun.spawn([process.execPath, '-e', "const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.json({ status: 'ok' }) }); console.log(JSON.stringify([s.port]));"], { stdout: 'pipe' });
  try {
    const [port] = await firstLine<number[]>(server.stdout);
    const addrs = [`127.0.0.1:${port}`];
    await load(addrs, '/', null, 200, WARMUP);
    const cpu = cpuMeter(() => [server.pid]);
    const r = await load(addrs, '/', null, 200, SECONDS);
    return { name: 'Bun hello-world (baseline, its own process)', r, instanceCpuUs: cpu(), pgCpuUs: null, created201: 0, rows: 0, delivered: 0 };
  } finally {
    server.kill('SIGTERM');
    await server.exited;
  }
}

async function runPayForge(name: string, db: string, count: number, pg: PgCluster | null, countRows: () => Promise<{ rows: number; delivered: number }>): Promise<Row> {
  const receiver = Bun.spawn([process.execPath, join(HERE, '../webhooks/receiver-proc.ts'), '1'], { stdout: 'pipe', stderr: 'inherit' });
  const [receiverPort] = await firstLine<number[]>(receiver.stdout);
  const cluster = await startInstances({ db, count, config: { logLevel: 'error' }, readyTimeoutMs: 120_000 });
  try {
    // The instances must be on that database (a serve that took the URL for a file name would not be).
    await countRows();
    const { key, accountId } = await cluster.account({ name: 'bench' });
    await cluster.setEndpoint(accountId, 'test', `http://127.0.0.1:${receiverPort}/hook`);
    const addrs = cluster.all.map((i) => new URL(i.url).host);
    const warm = await load(addrs, '/v1/intents', `Bearer ${key}`, 201, WARMUP);
    if (warm.bad + warm.socket_errors > 0) throw new Error(`${name}: warm-up errors ${warm.bad + warm.socket_errors} (${warm.sample})`);
    const instCpu = cpuMeter(() => cluster.all.map((i) => i.pid));
    const pgCpu = pg ? cpuMeter(() => postgresPids(pg.dataDir)) : null;
    const r = await load(addrs, '/v1/intents', `Bearer ${key}`, 201, SECONDS);
    const instanceCpuUs = instCpu();
    const pgCpuUs = pgCpu ? pgCpu() : null;
    await cluster.stop();
    console.error(`${name}: ${rps(r).toFixed(0)} req/s`);
    return { name, r, instanceCpuUs, pgCpuUs, created201: warm.ok + r.ok, ...(await countRows()) };
  } finally {
    await cluster.stop().catch(() => {});
    receiver.kill('SIGTERM');
    await receiver.exited;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'payforge-bench-cluster-'));
// fsync on: the same durability as SQLite's (each acknowledged commit on disk), not the tests' default.
const pg = await startCluster({ fsync: true });
const admin = new SQL({ url: pg.url(), max: 1 });
const rows: Row[] = [];
try {
  rows.push(await runHello());
  const sqlitePath = join(dir, 'payforge.db');
  rows.push(
    await runPayForge('PayForge, SQLite, 1 instance', sqlitePath, 1, null, async () => {
      const d = new Database(sqlitePath);
      try {
        const rows = (d.query('SELECT count(*) AS n FROM intents').get() as { n: number }).n;
        const delivered = (d.query("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'delivered'").get() as { n: number }).n;
        return { rows, delivered };
      } finally {
        d.close();
      }
    }),
  );
  for (const count of [1, 3]) {
    const name = `bench_${count}_${process.pid}`;
    await admin.unsafe(`CREATE DATABASE "${name}"`);
    rows.push(
      await runPayForge(`PayForge, PostgreSQL, ${count} instance${count > 1 ? 's' : ''}`, pg.url(name), count, pg, async () => {
        const sql = new SQL({ url: pg.url(name), max: 1 });
        try {
          const [{ n }] = await sql`SELECT count(*)::int AS n FROM intents`;
          const [{ d }] = await sql`SELECT count(*)::int AS d FROM webhook_deliveries WHERE status = 'delivered'`;
          return { rows: n as number, delivered: d as number };
        } finally {
          await sql.close();
        }
      }),
    );
  }
} finally {
  await admin.close().catch(() => {});
  await pg.destroy();
  rmSync(dir, { recursive: true, force: true });
}

const ms = (us: number) => (us / 1000).toFixed(1);
const perReq = (us: number | null, r: LoadResult) => (us === null ? '—' : (us / Math.max(1, r.requests)).toFixed(0));
const hello = rows[0]!;
const sqlite = rows[1]!;
const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const md = [
  `Run ${date} · ${machine()}`,
  `Load: wrk, ${WARMUP} s warm-up then ${SECONDS} s per row, ${CONNECTIONS} keep-alive connections (3 instances: one wrk thread per instance, ${Math.floor(CONNECTIONS / 3) * 3} connections spread evenly over them; no load balancer), the same POST body for every row, loopback; wrk, the servers and PostgreSQL share the machine's cores. Every PayForge row is real \`payforge serve\` processes (logLevel error, rate limit out of the way) with a webhook endpoint configured (a receiver in its own process), so each create also queues and sends its intent.created delivery. PostgreSQL 15 (Debian package) in a temp cluster with fsync on (acknowledged = on disk, as SQLite's group commit). CPU from /proc: the serve processes, and the PostgreSQL server with its backends.`,
  '',
  '| server | requests/s | vs SQLite | p50 ms | p99 ms | max ms | errors | serve CPU µs/request | PostgreSQL CPU µs/request |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (row) =>
      `| ${row.name} | ${rps(row.r).toFixed(0)} | ${row === hello ? '—' : `${((rps(row.r) / rps(sqlite.r)) * 100).toFixed(0)} %`} | ${ms(row.r.p50_us)} | ${ms(row.r.p99_us)} | ${ms(row.r.max_us)} | ${row.r.bad + row.r.socket_errors} | ${perReq(row.instanceCpuUs, row.r)} | ${perReq(row.pgCpuUs, row.r)} |`,
  ),
  '',
  rows
    .slice(1)
    .map((row) => `${row.name}: ${row.rows} intent rows ≥ ${row.created201} responses 201 (warm-up + run), ${row.delivered} intent.created webhooks delivered by shutdown.`)
    .join(' '),
].join('\n');

console.log(md);
const failures: string[] = [];
for (const row of rows) if (row.r.bad + row.r.socket_errors > 0) failures.push(`${row.name}: ${row.r.bad + row.r.socket_errors} errors (${row.r.sample})`);
for (const row of rows.slice(1)) if (row.rows < row.created201) failures.push(`${row.name}: only ${row.rows} rows for ${row.created201} responses 201`);
if (WRITE && failures.length === 0) console.log(`\nwritten to ${writeResults('create-cluster', md)}`);
if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
