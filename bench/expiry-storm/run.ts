// bench/expiry-storm: a server that was down past its live intents' TTL (15 min by default) boots
// with every one of them overdue, and expires them all at once. Measured: the longest /healthz
// round trip from the moment it answers (probed every 20 ms: the longest the event loop was held
// in one piece), p50/p99 of the probes, boot to /readyz, and the time until no live intent is left
// (`payforge_live_actors` 0). The same database (bench/boot's: a real server's rows cloned, all
// moved past expires_at) is booted by each tree in turn, alternated: the same-run baseline is the
// other tree. Not timed in any test.
//   bun bench/expiry-storm/run.ts       BENCH_LIVE=100000 BENCH_ROUNDS=3 BENCH_TREES="/base /this"
import { copyFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Database } from 'bun:sqlite';
import { freePort } from '../../test/support/cli';
import { makeDb } from '../boot/db';

const LIVE = Number(process.env.BENCH_LIVE ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TREES = (process.env.BENCH_TREES ?? join(import.meta.dir, '../..')).split(' ').filter(Boolean).map((t) => resolve(t));
const LIMIT_MS = 120_000;

async function storm(tree: string, source: string): Promise<string> {
  const db = `${source}.storm.db`;
  copyFileSync(source, db);
  const s = new Database(db);
  s.run("UPDATE intents SET expires_at = 1 WHERE state = 'created'");
  s.run('PRAGMA wal_checkpoint(TRUNCATE)');
  s.close();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const proc = Bun.spawn([process.execPath, join(tree, 'src/main.ts'), 'serve', '--db', db, '--port', String(port)], {
    env: { ...process.env, PAYFORGE_LOG_LEVEL: 'error' },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  try {
    while (!(await fetch(`${url}/healthz`).then((r) => r.ok, () => false))) {
      if (performance.now() - t0 > LIMIT_MS) throw new Error('no /healthz');
      await Bun.sleep(10);
    }
    const listening = performance.now() - t0;
    let ready = 0;
    let doneAt = 0;
    const lags: number[] = [];
    for (let n = 1; performance.now() - t0 < LIMIT_MS; n++) {
      const t = performance.now();
      await fetch(`${url}/healthz`).then((r) => r.arrayBuffer());
      lags.push(performance.now() - t);
      if (!ready && (await fetch(`${url}/readyz`)).status === 200) ready = performance.now() - t0;
      if (ready && n % 25 === 0) {
        const m = await (await fetch(`${url}/metrics`)).text();
        if (Number(/^payforge_live_actors (\d+)/m.exec(m)?.[1]) === 0) {
          doneAt = performance.now() - t0;
          break;
        }
      }
      await Bun.sleep(20);
    }
    lags.sort((a, b) => a - b);
    const q = (f: number) => lags[Math.min(lags.length - 1, Math.floor(lags.length * f))]!.toFixed(1);
    const done = doneAt ? `${(doneAt / 1000).toFixed(1)} s` : `not within ${LIMIT_MS / 1000} s`;
    return `${listening.toFixed(0)} ms | ${ready.toFixed(0)} ms | ${done} | max ${q(1)} ms, p99 ${q(0.99)}, p50 ${q(0.5)} (${lags.length} probes)`;
  } finally {
    proc.kill('SIGTERM');
    await proc.exited;
    for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  }
}

const { db, dir } = await makeDb(LIVE, 0);
try {
  console.log(`${LIVE.toLocaleString('en-US')} live intents, all overdue at boot; load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`);
  console.log('| round | tree | listening | /readyz | all expired | /healthz while expiring |');
  console.log('|---|---|---|---|---|---|');
  for (let r = 1; r <= ROUNDS; r++) {
    for (const tree of r % 2 ? TREES : [...TREES].reverse()) {
      const line = await storm(tree, db);
      console.log(`| ${r} | ${tree} | ${line} |`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
