// The dashboard live view's snapshot (counts per state, newest intents and events) of one account
// with a long history, on SQLite with the real migrations: the first snapshot of a store, and one
// after a burst of new intents ended; and the accounts page's intent counts per account (its first
// load, before the first snapshot, and one after each burst; BENCH_ACCOUNTS=0 leaves them out, so
// the first snapshot is the store's very first read). ROOT=<tree> times another checkout's store
// (the same-run baseline: run this tree and the base tree alternately). Not timed in any test.
//   bun bench/live-snapshot/run.ts            (BENCH_INTENTS=1000000 by default)
//   ROOT=/tmp/base bun bench/live-snapshot/run.ts
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(process.env.ROOT ?? join(import.meta.dir, '../..'));
const N = Number(process.env.BENCH_INTENTS ?? 1_000_000);
const BURST = Number(process.env.BENCH_BURST ?? 1_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);
const ACCOUNTS = process.env.BENCH_ACCOUNTS !== '0';

const { openSqliteStore } = (await import(join(ROOT, 'src/store/store.ts'))) as typeof import('../../src/store/store');
const { statesTagged } = (await import(join(ROOT, 'machines/judge.ts'))) as typeof import('../../machines/judge');
const states = { live: statesTagged('live'), watching: statesTagged('watching') };

const dir = mkdtempSync(join(tmpdir(), 'payforge-live-snapshot-'));
const path = join(dir, 'payforge.db');
try {
  openSqliteStore(path, { states, log: () => {}, oneShot: true }).db.close();
  const raw = new Database(path);
  const t0 = performance.now();
  // N intents of one account, 1 in 1000 still pending, the rest ended, each with its last event.
  const series = (n: number, from = 1) => `WITH RECURSIVE s(g) AS (SELECT ${from} UNION ALL SELECT g + 1 FROM s WHERE g < ${from + n - 1}) `;
  const fill = (n: number, from: number) => {
    raw.exec(`${series(n, from)}INSERT INTO intents (id, account_id, mode, chain, token, token_address, decimals, amount_base_units, requestor,
        direction, state, metadata, ttl_seconds, expires_at, created_at, updated_at, retry_required, pending_at_expiry, snapshot, machine_version)
      SELECT 'pi_' || g, 'acct_a', 'test', 'eip155:84532', 'USDC', '0xtoken', 6, '1', '0xreq', 'request',
        CASE WHEN g % 1000 = 0 THEN 'pending' WHEN g % 3 = 0 THEN 'expired' ELSE 'finalized' END, '{}', 900, 1, g, g, 0, 0, '{}', 1 FROM s`);
    raw.exec(`${series(n, from)}INSERT INTO events (id, account_id, mode, intent_id, type, payload, created_at)
      SELECT 'evt_' || g, 'acct_a', 'test', 'pi_' || g, CASE WHEN g % 1000 = 0 THEN 'intent.pending' WHEN g % 3 = 0 THEN 'intent.expired' ELSE 'intent.finalized' END,
        '{"data":{"intent":{"state":"x"}}}', g FROM s`);
  };
  fill(N, 1);
  raw.close();
  console.log(`filled ${N.toLocaleString('en-US')} intents + events in ${((performance.now() - t0) / 1000).toFixed(1)} s (tree ${ROOT})`);

  const store = openSqliteStore(path, { states, log: () => {}, oneShot: true });
  const time = (label: string) => {
    const t = performance.now();
    const s = store.repos.liveEvents.snapshot('acct_a', 'test', 50);
    const ms = performance.now() - t;
    console.log(`${label}: ${ms.toFixed(2)} ms  (counts ${JSON.stringify(s.counts)})`);
    return ms;
  };
  const page = (label: string) => {
    const t = performance.now();
    const counts = store.repos.intentsOverview.countsByAccount() as Map<string, number>;
    const ms = performance.now() - t;
    console.log(`${label}: ${ms.toFixed(2)} ms  (acct_a ${counts.get('acct_a')} intents)`);
    return ms;
  };
  if (ACCOUNTS) page('accounts page, first load');
  time('first snapshot');
  const later: number[] = [];
  const pages: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const w = new Database(path);
    w.exec('BEGIN');
    const before = N + i * BURST;
    // A burst of new intents that ended, each with its event, written by another connection.
    const rw = w;
    rw.exec(`${series(BURST, before + 1)}INSERT INTO intents (id, account_id, mode, chain, token, token_address, decimals, amount_base_units, requestor,
        direction, state, metadata, ttl_seconds, expires_at, created_at, updated_at, retry_required, pending_at_expiry, snapshot, machine_version)
      SELECT 'pi_' || g, 'acct_a', 'test', 'eip155:84532', 'USDC', '0xtoken', 6, '1', '0xreq', 'request', 'cancelled', '{}', 900, 1, g, g, 0, 0, '{}', 1 FROM s`);
    rw.exec(`${series(BURST, before + 1)}INSERT INTO events (id, account_id, mode, intent_id, type, payload, created_at)
      SELECT 'evt_' || g, 'acct_a', 'test', 'pi_' || g, 'intent.cancelled', '{"data":{"intent":{"state":"cancelled"}}}', g FROM s`);
    w.exec('COMMIT');
    w.close();
    later.push(time(`after ${BURST} more ended (${i + 1})`));
    if (ACCOUNTS) pages.push(page(`accounts page after ${BURST} more (${i + 1})`));
  }
  later.sort((a, b) => a - b);
  pages.sort((a, b) => a - b);
  if (ACCOUNTS) console.log(`median accounts page after a burst: ${pages[Math.floor(pages.length / 2)]!.toFixed(2)} ms`);
  console.log(`median snapshot after a burst: ${later[Math.floor(later.length / 2)]!.toFixed(2)} ms at ${N.toLocaleString('en-US')} intents; load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`);
  store.db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
