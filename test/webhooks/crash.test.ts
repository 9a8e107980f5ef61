// Crash safety end to end: a real `payforge serve` is killed with SIGKILL while transitions
// stream in, restarted on the same database, and every acknowledged transition's event still
// reaches the receiver (at least once), signed, with nothing left pending.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDb } from '../../src/store/db';
import { runCli, startServe } from '../support/cli';
import { startReceiver, type Receiver } from '../support/receiver';
import { until } from './factory';

let dir: string;
let rx: Receiver;
const servers: Array<{ proc: { kill(s?: string | number): void; exited: Promise<number> } }> = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pf-crash-'));
  rx = startReceiver();
});
afterAll(async () => {
  for (const s of servers) s.proc.kill('SIGKILL');
  await Promise.all(servers.map((s) => s.proc.exited));
  await rx.close();
  rmSync(dir, { recursive: true, force: true });
});

it('delivers every acknowledged event after a SIGKILL mid-stream and a restart', async () => {
  const db = join(dir, 'pf.db');
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({ webhooks: { retryScheduleSeconds: [0.05, 0.1, 0.2, 0.3, 0.5, 0.5, 0.5, 0.5, 0.5], pollIntervalMs: 50, leaseMs: 600, timeoutMs: 300 } }),
  );
  // A receiver that is a little slow and sometimes fails: kills land mid-send and mid-retry.
  rx.setHandler((_r, i) => ({ status: i % 7 === 3 ? 500 : 200, delayMs: i % 5 }));

  // Port 0 for each start: the restarted server need not reuse the dead one's port (on a busy
  // machine another socket may take it first), since the test follows each server's own URL.
  const args = ['serve', '--bootstrap', '--db', db, '--config', config, '--port', '0'];
  const first = await startServe(args);
  servers.push(first);
  const key = first.testKey!;
  const peek = openDb(db);
  const account = peek.sqlite.query<{ id: string }, []>('SELECT id FROM accounts').get()!.id;
  const set = await runCli(['webhooks', 'set-endpoint', '--db', db, '--config', config, '--account', account, '--mode', 'test', '--url', rx.url('/hooks')]);
  expect(set.code).toBe(0);
  const { secret } = set.json<{ secret: string }>();

  // Acknowledged = the API answered success: its event must be delivered, whatever happens next.
  const acked = new Set<string>(); // `${intentId} ${eventType}`
  let base = first.url;
  let killed = false;
  const call = async (path: string, body?: unknown): Promise<{ status: number; json: any } | null> => {
    try {
      const res = await fetch(base + path, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: await res.json() };
    } catch {
      return null; // connection died with the process: not acknowledged
    }
  };
  const worker = async (w: number) => {
    for (let i = 0; !killed; i++) {
      const created = await call('/v1/intents', { chain: 'eip155:84532', token: 'USDC', amount: '1.25', requestor: '0x' + '22'.repeat(20), reference: `w${w}-${i}` });
      if (!created) continue;
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      acked.add(`${created.json.intent.id} intent.created`);
      if (i % 2 === 0) {
        const cancelled = await call(`/v1/intents/${created.json.intent.id}/cancel`);
        if (cancelled?.status === 200) acked.add(`${created.json.intent.id} intent.cancelled`);
      }
    }
  };
  const workers = Array.from({ length: 6 }, (_, w) => worker(w));
  await until(() => acked.size, (n) => n >= 150, 20_000);
  first.proc.kill('SIGKILL');
  killed = true;
  await first.proc.exited;
  await Promise.all(workers);
  const before = acked.size;

  const second = await startServe(args);
  servers.push(second);
  base = second.url;
  killed = false;
  // More transitions after the restart, then let the outbox drain.
  await Promise.all(Array.from({ length: 2 }, (_, w) => (async () => {
    for (let i = 0; i < 10; i++) {
      const created = await call('/v1/intents', { chain: 'eip155:84532', token: 'USDC', amount: '2', requestor: '0x' + '33'.repeat(20) });
      expect(created?.status).toBe(201);
      acked.add(`${created!.json.intent.id} intent.created`);
    }
  })()));
  expect(acked.size).toBe(before + 20);

  const delivered = () => {
    const got = new Set<string>();
    for (const r of rx.requests) {
      const env = JSON.parse(r.body);
      got.add(`${env.data.intent.id} ${env.type}`);
    }
    return got;
  };
  await until(delivered, (got) => [...acked].every((k) => got.has(k)), 30_000);
  // Every event the database holds (acknowledged or not) ends delivered: nothing stranded.
  await until(
    () => peek.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_deliveries WHERE status <> 'delivered'").get()!.n,
    (n) => n === 0,
    30_000,
  );
  const events = peek.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM events').get()!.n;
  expect(events).toBeGreaterThanOrEqual(acked.size);
  expect(new Set(rx.requests.map((r) => r.headers['webhook-id'])).size).toBe(events);
  for (const r of rx.requests.slice(-20)) expect(() => new Webhook(secret).verify(r.body, r.headers)).not.toThrow();
  peek.close();
  await second.stop();
}, 90_000);
