// bench/boot: boot to /readyz and resident memory with many live intents, beside the same server
// booting an empty database in the same run (the baseline: Bun start-up, module loading, migrations).
// The database is made by a real server (one live and one cancelled intent through the API), then
// those rows are cloned in SQLite: 100k live (and optionally 1M stored terminal) intents in seconds.
// Usage: bun bench/boot/run.ts [--write]   BENCH_LIVE=100000 BENCH_STORED=1000000 (0 = skip that run)
import { rmSync } from 'node:fs';
import { freePort, MAIN } from '../../test/support/cli';
import { machine } from '../support/machine';
import { writeResults } from '../support/results-md';
import { emptyDb, makeDb } from './db';

const LIVE = Number(process.env.BENCH_LIVE ?? 100_000);
const STORED = Number(process.env.BENCH_STORED ?? 1_000_000);
const WRITE = process.argv.includes('--write');

interface Boot {
  readyMs: number;
  rssMiB: number;
  heapMiB: number;
  /** The server's CPU (one core = 100 %) while idle after boot: what keeping the live intents costs. */
  idleCpuPct: number;
  /** Longest GET /healthz round trip while idle (probed every 20 ms): the longest the event loop was held. */
  maxLagMs: number;
}

const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
/** Extra flags for the measured `bun` (e.g. BENCH_BUN_FLAGS='--cpu-prof-md --cpu-prof-dir=/tmp/p'). */
const BUN_FLAGS = (process.env.BENCH_BUN_FLAGS ?? '').split(' ').filter(Boolean);
/** utime + stime of a process, in seconds (clock ticks of 1/100 s on Linux). */
async function cpuSeconds(pid: number): Promise<number> {
  const f = (await Bun.file(`/proc/${pid}/stat`).text()).split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** Spawn `serve` on the file, time spawn → /readyz 200, read VmRSS once ready, stop it. */
async function boot(db: string): Promise<Boot> {
  const port = await freePort();
  const t0 = performance.now();
  const proc = Bun.spawn([process.execPath, ...BUN_FLAGS, MAIN, 'serve', '--db', db, '--port', String(port)], {
    env: { ...process.env, PAYFORGE_LOG_LEVEL: 'error' },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  try {
    for (;;) {
      if (performance.now() - t0 > 120_000) throw new Error('no /readyz within 120 s');
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false);
      if (ok) break;
      await Bun.sleep(10);
    }
    const readyMs = performance.now() - t0;
    await Bun.sleep(500); // let the allocator settle after rehydration
    const status = await Bun.file(`/proc/${proc.pid}/status`).text();
    const rssKiB = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const heap = Number(/^payforge_heap_used_bytes (\d+)/m.exec(metrics)?.[1] ?? NaN);
    const c0 = await cpuSeconds(proc.pid);
    // The idle window with a light probe (50 requests/s, each a few µs of the server's CPU): the
    // detectors' reads after boot must not hold the event loop for long in one piece.
    const idleEnd = performance.now() + IDLE_SECONDS * 1000;
    let maxLagMs = 0;
    while (performance.now() < idleEnd) {
      const t = performance.now();
      await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.arrayBuffer());
      maxLagMs = Math.max(maxLagMs, performance.now() - t);
      await Bun.sleep(Math.max(0, Math.min(20, idleEnd - performance.now())));
    }
    const idleCpuPct = ((await cpuSeconds(proc.pid)) - c0) / IDLE_SECONDS * 100;
    return { readyMs, rssMiB: rssKiB / 1024, heapMiB: heap / 2 ** 20, idleCpuPct, maxLagMs };
  } finally {
    proc.kill('SIGTERM');
    await proc.exited;
  }
}

const runs: Array<{ name: string; live: number; stored: number; boot: Boot; bytesPerIntent: number }> = [];
for (const [name, live, stored] of [
  ['empty database (baseline)', 0, 0],
  [`${LIVE.toLocaleString('en')} live`, LIVE, 0],
  ...(STORED > 0 ? [[`${LIVE.toLocaleString('en')} live + ${STORED.toLocaleString('en')} stored`, LIVE, STORED] as const] : []),
] as const) {
  const { db, dir, bytesPerIntent } = live + stored === 0 ? emptyDb() : await makeDb(live, stored);
  try {
    await boot(db); // warm the page cache and run migrations once
    const b = await boot(db);
    runs.push({ name, live, stored, boot: b, bytesPerIntent });
    console.log(name, b);
  } finally {
    // BENCH_KEEP_DB=1 leaves the databases for profiling (`serve --db <path>` under --cpu-prof).
    if (process.env.BENCH_KEEP_DB === '1') console.log('kept', db);
    else rmSync(dir, { recursive: true, force: true });
  }
}

const base = runs[0]!;
const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const md = [
  `Run ${date} · ${machine()}`,
  'Spawn of `payforge serve` → first `/readyz` 200 (polled every 10 ms), second boot of each database (page cache warm); VmRSS and the JS heap (`payforge_heap_used_bytes`) 0.5 s after ready, then the server\'s CPU over the next seconds with no requests but a `/healthz` probe every 20 ms (utime + stime from /proc; 100 % = one core) and the probe\'s longest round trip (the longest the event loop was held).',
  '',
  `| database | boot to /readyz ms | resident MiB | JS heap MiB | resident KiB per live intent (over baseline) | heap KiB per live intent (over baseline) | CPU while idle, next ${IDLE_SECONDS} s | longest /healthz while idle ms | DB bytes per intent row |`,
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...runs.map((r) =>
    `| ${r.name} | ${r.boot.readyMs.toFixed(0)} | ${r.boot.rssMiB.toFixed(1)} | ${r.boot.heapMiB.toFixed(1)} | ${r.live ? (((r.boot.rssMiB - base.boot.rssMiB) * 1024) / r.live).toFixed(2) : '—'} | ${r.live ? (((r.boot.heapMiB - base.boot.heapMiB) * 1024) / r.live).toFixed(2) : '—'} | ${r.boot.idleCpuPct.toFixed(0)} % | ${r.boot.maxLagMs.toFixed(0)} | ${r.bytesPerIntent ? r.bytesPerIntent.toFixed(0) : '—'} |`,
  ),
].join('\n');
console.log(md);
if (WRITE) console.log(`\nwritten to ${writeResults('boot', md)}`);
