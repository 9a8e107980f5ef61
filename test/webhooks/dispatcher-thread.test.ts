// The webhook dispatcher on its own thread, end to end: a real `payforge serve` runs it on a Worker
// with its own connection to the store (src/webhooks/dispatcher-thread.ts). Deliveries arrive
// signed and /metrics counts them; a SIGTERM mid-send exits cleanly with the rows given back
// unleased and uncharged; a kill -9 mid-send leaves unrecorded rows that a restarted serve sends
// again: on PostgreSQL once their leases run out, on SQLite at once (one serve per file holds its
// leases in memory: they died with it). On the engine under test (SQLite file or PostgreSQL).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.types';
import type { Dispatcher } from '../../src/webhooks/dispatcher';
import { startDispatcherThread } from '../../src/webhooks/dispatcher-thread';
import { runCli } from '../support/cli';
import type { RawSql } from '../support/raw-sql';
import type { Receiver } from '../support/receiver';
import { type Serve, type ServeRig, serveRig } from '../support/serve-rig';
import type { TestDatabase } from '../support/test-store';
import { until } from './factory';

/** Poll an async read until `pred` holds (a deadline, never a fixed sleep). */
async function eventually<T>(read: () => Promise<T>, pred: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (pred(v)) return v;
    if (Date.now() > end) throw new Error(`condition not met after ${timeoutMs} ms; last value ${JSON.stringify(v)}`);
    await Bun.sleep(20);
  }
}

let rig: ServeRig;
let tdb: TestDatabase;
let rx: Receiver;
let sql: RawSql;
let config: string;
let polling: string;
let args: string[];

beforeAll(async () => {
  rig = await serveRig();
  ({ tdb, rx, sql } = rig);
  config = join(tdb.dir, 'config.json');
  // A send outlives the moment the test stops or kills the server (10 s, with room for a loaded
  // suite: at 4 s a held send once timed out and was recorded before the kill), so both land mid-send;
  // the lease is then 20 s (twice the timeout): what a restart waits before sending again. No poll
  // within the test: what a running server sends, it sends because the commit woke its thread.
  writeFileSync(config, JSON.stringify({ webhooks: { pollIntervalMs: 600_000, timeoutMs: 10_000, leaseMs: 1000 } }));
  args = ['serve', '--bootstrap', '--db', tdb.db, '--config', config, '--port', '0'];
  // The restart after the kill finds the rows whose leases ran out by polling.
  polling = join(tdb.dir, 'polling.json');
  writeFileSync(polling, JSON.stringify({ webhooks: { pollIntervalMs: 100, timeoutMs: 10_000, leaseMs: 1000 } }));
});
afterAll(() => rig.close());

const serve = (configFile = config): Promise<Serve> => rig.serve(args.map((a) => (a === config ? configFile : a)));

async function createIntents(s: Serve, key: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${s.url}/v1/intents`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '1.25', requestor: `0x${'22'.repeat(20)}` }),
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(201);
    ids.push(body.intent.id);
  }
  return ids;
}

const metric = async (s: Serve, name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(await (await fetch(`${s.url}/metrics`)).text())?.[1]);
const intentsAt = (from: number) => new Set(rx.requests.slice(from).map((r) => JSON.parse(r.body).data.intent.id as string));
const undelivered = () =>
  sql.all<{ status: string; attempt_count: number; lease_until: number | null }>("SELECT status, attempt_count, lease_until FROM webhook_deliveries WHERE status <> 'delivered'");

let key: string;
/** The intents whose sends the stop aborted. */
let held: string[] = [];

it('sends from its own thread when a commit wakes it, signed, counted in /metrics; a SIGTERM mid-send gives the rows back uncharged', async () => {
  const s = await serve();
  key = s.testKey!;
  const [account] = await sql.all<{ id: string }>('SELECT id FROM accounts');
  const set = await runCli(['webhooks', 'set-endpoint', '--db', tdb.db, '--config', config, '--account', account!.id, '--mode', 'test', '--url', rx.url('/hooks')]);
  expect(set.code, set.stderr).toBe(0);
  const { secret } = set.json<{ secret: string }>();

  const ids = await createIntents(s, key, 20);
  await rx.waitFor(20, { timeoutMs: 20_000 });
  expect(intentsAt(0)).toEqual(new Set(ids));
  for (const r of rx.requests) expect(() => new Webhook(secret).verify(r.body, r.headers)).not.toThrow();
  expect(await eventually(() => metric(s, 'payforge_webhook_delivered_total'), (n) => n === 20)).toBe(20);
  expect(s.stderr()).toContain('webhook dispatcher running on its own thread');

  // The receiver stops answering: the next sends are in flight when the server is told to stop.
  rx.setHandler(() => ({ status: 200, delayMs: 30_000 }));
  const from = rx.requests.length;
  held = await createIntents(s, key, 3);
  await rx.waitFor(from + 3, { timeoutMs: 20_000 });
  expect(intentsAt(from)).toEqual(new Set(held));
  expect(await s.stop()).toBe(0);
  // Aborted by the stop: pending again, no lease, no attempt counted.
  expect(await undelivered()).toEqual(Array.from({ length: 3 }, () => ({ status: 'pending', attempt_count: 0, lease_until: null })));
}, 90_000);

it('after a kill -9 mid-send, a restarted serve sends the unrecorded rows again (PostgreSQL: once their leases run out)', async () => {
  // Counted before the serve starts: its first look sends the 3 rows given back at the stop, and
  // they can reach the receiver before its URL line reaches this process.
  const from = rx.requests.length;
  const second = await serve();
  // The 3 rows given back at the stop go out at once (still hanging at the receiver), and 3 more.
  const more = await createIntents(second, key, 3);
  await until(() => intentsAt(from), (got) => [...held, ...more].every((id) => got.has(id)), 20_000);
  second.proc.kill('SIGKILL');
  await second.proc.exited;
  // Claimed by the dead process, unrecorded: leased in the rows on PostgreSQL, in its memory on SQLite.
  const left = await undelivered();
  expect(left.length).toBe(6);
  for (const r of left) expect(r).toMatchObject({ status: 'pending', attempt_count: 0 });
  const pg = /^postgres(ql)?:\/\//i.test(tdb.db);
  for (const r of left) expect(r.lease_until === null).toBe(!pg);

  rx.setHandler(() => ({ status: 200 }));
  const redelivered = rx.requests.length;
  await serve(polling);
  await eventually(undelivered, (rows) => rows.length === 0, 40_000);
  const got = intentsAt(redelivered);
  for (const id of more) expect(got.has(id), id).toBe(true);
  // Sent twice (at least once), recorded once, first attempt each: the killed sends were never recorded.
  const rows = await sql.all<{ n: number }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'delivered' AND attempt_count = 1");
  expect(Number(rows[0]!.n)).toBe(26);
}, 90_000);

it('runs the dispatcher on the event loop instead when its thread cannot start', async () => {
  const lines: string[] = [];
  let started = 0;
  const fallback: Dispatcher = { start: () => void started++, wake() {}, stop: async () => {}, stats: () => ({ inFlight: 0, attempts: 7, delivered: 7, failed: 0 }) };
  // A SQLite file without the server's write gate: the worker refuses to open it (it could not keep the durability gate).
  const d = startDispatcherThread({
    db: join(tdb.dir, 'no-gate.db'),
    gate: null,
    config: DEFAULT_CONFIG,
    log: (level, msg) => void lines.push(`${level} ${msg}`),
    levels: ['info', 'warn', 'error'],
    fallback: () => fallback,
  });
  d.start();
  await until(() => started, (n) => n === 1);
  expect(lines).toContain('error webhook dispatcher thread failed; dispatching on the event loop');
  expect(d.stats().delivered).toBe(7);
  await d.stop();
});
