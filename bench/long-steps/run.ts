// bench/long-steps: the longest single step of the server's event loop during each event that
// goes over every live intent (or queues thousands of writes) while it serves, with 100k live
// intents (bench/boot's database: a real server's rows cloned). Each tree (BENCH_TREES: the
// same-run baseline is the other tree) boots the same database in turn, alternated, and a probe
// GET /healthz every ~2 ms measures the round trip (the longest = the longest the loop was held in
// one piece, plus ~0.2 ms of the probe's own) over a window per event, triggered from outside as
// an operator or another instance would:
//   idle       nothing (the detectors' and the periodic scan's own reads);
//   burst      5,000 `sending` submissions written by another connection (a crash mid-bulk-submit):
//              the periodic reconciliation applies them at once, 5,000 writes queued together;
//   lease lost another owner takes every shard lease (as after this instance stalled): the
//              runtime and the chain watch drop 100k live intents;
//   lease back it gives them up: this instance takes them back and reads the shards at once;
//   metrics    /metrics scraped 10 times, 100 ms apart.
// Not timed in any test.
//   bun bench/long-steps/run.ts [--write]   BENCH_LIVE=100000 BENCH_ROUNDS=3 BENCH_TREES="/base /this"
import { copyFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Database } from 'bun:sqlite';
import { freePort } from '../../test/support/cli';
import { makeDb } from '../boot/db';
import { machine } from '../support/machine';
import { writeResults } from '../support/results-md';

const LIVE = Number(process.env.BENCH_LIVE ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BURST = Number(process.env.BENCH_BURST ?? 5_000);
const TREES = (process.env.BENCH_TREES ?? join(import.meta.dir, '../..')).split(' ').filter(Boolean).map((t) => resolve(t));
const WRITE = process.argv.includes('--write');
/** Extra flags for the measured `bun` (e.g. BENCH_BUN_FLAGS='--cpu-prof-md --cpu-prof-dir=/tmp/p'). */
const BUN_FLAGS = (process.env.BENCH_BUN_FLAGS ?? '').split(' ').filter(Boolean);
/** A window: long enough for the lease look (every 1.7 s) or the reconciliation (every 2 s) to come round. */
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 7_000);
const EVENTS = ['idle', 'burst', 'lease lost', 'lease back', 'metrics'] as const;
type Event = (typeof EVENTS)[number];

/** Probe /healthz back to back (2 ms apart) until stop(); the longest round trip per window. */
function probe(url: string) {
  let worst = 0;
  let n = 0;
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const t = performance.now();
      await fetch(`${url}/healthz`).then((r) => r.arrayBuffer());
      worst = Math.max(worst, performance.now() - t);
      n++;
      await Bun.sleep(2);
    }
  })();
  return {
    /** The worst round trip since the last take (and how many probes). */
    take(): { worst: number; n: number } {
      const out = { worst, n };
      worst = 0;
      n = 0;
      return out;
    },
    async stop() {
      stopped = true;
      await done;
    },
  };
}

const liveActors = async (url: string) => Number(/^payforge_live_actors (\d+)/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1]);

async function run(tree: string, source: string): Promise<Record<Event, number> & { check: string }> {
  const db = `${source}.steps.db`;
  copyFileSync(source, db);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([process.execPath, ...BUN_FLAGS, join(tree, 'src/main.ts'), 'serve', '--db', db, '--port', String(port)], {
    env: { ...process.env, PAYFORGE_LOG_LEVEL: 'error' },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  const side = new Database(db);
  side.run('PRAGMA busy_timeout = 5000');
  const out = {} as Record<Event, number> & { check: string };
  try {
    const t0 = performance.now();
    while ((await fetch(`${url}/readyz`).then((r) => r.status, () => 0)) !== 200) {
      if (performance.now() - t0 > 60_000) throw new Error('no /readyz');
      await Bun.sleep(20);
    }
    await Bun.sleep(2_000);
    const p = probe(url);
    const window = async (event: Event, ms = WINDOW_MS) => {
      p.take();
      await Bun.sleep(ms);
      out[event] = p.take().worst;
    };
    await window('idle', 3_000);

    // 5,000 submissions left `sending` (their broadcasts' process died): reconciliation applies them.
    const now = Date.now();
    side.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO submissions (intent_id, chain, tx_signature, signer, signed_transaction, watch_data, source, status, outcome, created_at, updated_at)
       SELECT 'pi_L' || printf('%023d', i), 'eip155:84532', '0x' || printf('%064x', i), '0x2222222222222222222222222222222222222222', NULL, NULL, 'txid', 'sending', NULL, ?, ? FROM n`,
      [BURST, now, now],
    );
    await window('burst');
    const left = (side.query("SELECT count(*) AS n FROM submissions WHERE status = 'sending'").get() as { n: number }).n;

    // Another owner takes every shard (unexpired): this instance loses them at its next renewal.
    side.run("UPDATE leases SET owner = 'inst_bench', epoch = epoch + 1, expires_at = ? WHERE name LIKE 'shard:%'", [Date.now() + 600_000]);
    await window('lease lost');
    const afterLoss = await liveActors(url);
    side.run("UPDATE leases SET expires_at = 0 WHERE owner = 'inst_bench'");
    await window('lease back');
    const afterBack = await liveActors(url);

    p.take();
    for (let i = 0; i < 10; i++) {
      await (await fetch(`${url}/metrics`)).text();
      await Bun.sleep(100);
    }
    out.metrics = p.take().worst;
    await p.stop();
    out.check = `sending left ${left}, live after loss ${afterLoss}, after back ${afterBack}`;
    return out;
  } finally {
    side.close();
    proc.kill('SIGTERM');
    await proc.exited;
    for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  }
}

const { db, dir } = await makeDb(LIVE, 0, true);
const lines: string[] = [];
const short = (t: string) => (TREES.length > 1 ? `${TREES.indexOf(t) === 0 ? 'A' : 'B'} ${t}` : t);
try {
  const head = `${LIVE.toLocaleString('en-US')} live intents; longest /healthz round trip (ms) per window; ${machine()}`;
  console.log(head);
  lines.push(head, '', `| round | tree | ${EVENTS.join(' | ')} | check |`, `|---|---|${EVENTS.map(() => '---:').join('|')}|---|`);
  console.log(lines.slice(2).join('\n'));
  for (let r = 1; r <= ROUNDS; r++) {
    for (const tree of r % 2 ? TREES : [...TREES].reverse()) {
      const o = await run(tree, db);
      const line = `| ${r} | ${short(tree)} | ${EVENTS.map((e) => o[e].toFixed(1)).join(' | ')} | ${o.check} |`;
      console.log(line);
      lines.push(line);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const md = [`Run ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} · ${lines[0]}`, ...lines.slice(1)].join('\n');
if (WRITE) console.log(`\nwritten to ${writeResults('long-steps', md)}`);
