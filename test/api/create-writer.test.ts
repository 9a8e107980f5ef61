// Creates on a real `payforge serve`, which on a SQLite file writes them on the intent writer
// thread (its own connection, group-committed, synchronous=FULL: src/store/intent-writer.ts) and on
// PostgreSQL in the event loop's write path as before: both must answer the same. Created intents
// read back with their event and delivery, and their intent.created webhooks arrive; concurrent
// creates with one Idempotency-Key make one intent; a create whose write fails answers with the
// error envelope while the creates beside it commit; a kill -9 during a storm of creates loses no
// answered create (its row, event and delivery are there after a restart).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../support/cli';
import type { RawSql } from '../support/raw-sql';
import type { Receiver } from '../support/receiver';
import { type Serve, type ServeRig, serveRig } from '../support/serve-rig';
import { testEngine, type TestDatabase } from '../support/test-store';

let rig: ServeRig;
let tdb: TestDatabase;
let rx: Receiver;
let sql: RawSql;
let args: string[];
let key: string;
let current: Serve;
const sqlite = testEngine() === 'sqlite';

beforeAll(async () => {
  rig = await serveRig();
  ({ tdb, rx, sql } = rig);
  const config = join(tdb.dir, 'config.json');
  // The storm below sends more creates than one key's default rate limit admits in a burst.
  writeFileSync(config, JSON.stringify({ webhooks: { pollIntervalMs: 200, timeoutMs: 2000, leaseMs: 1000 }, rateLimit: { perSecond: 1_000_000, burst: 1_000_000 }, intents: { defaultTtlSeconds: 900, minTtlSeconds: 1, maxTtlSeconds: 604800 }, sqlite: { writerThread: true } }));
  args = ['serve', '--bootstrap', '--db', tdb.db, '--config', config, '--port', '0'];
  current = await serve();
  key = current.testKey!;
  const [account] = await sql.all<{ id: string }>('SELECT id FROM accounts');
  const set = await runCli(['webhooks', 'set-endpoint', '--db', tdb.db, '--config', config, '--account', account!.id, '--mode', 'test', '--url', rx.url('/hooks')]);
  expect(set.code, set.stderr).toBe(0);
});
afterAll(() => rig.close());

const serve = (): Promise<Serve> => rig.serve(args);

const BODY = { chain: 'eip155:84532', token: 'USDC', amount: '1.25', requestor: `0x${'22'.repeat(20)}` };

async function create(s: Serve, body: Record<string, unknown> = BODY, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(`${s.url}/v1/intents`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const metric = async (s: Serve, name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(await (await fetch(`${s.url}/metrics`)).text())?.[1] ?? NaN);

/** Each id's intent row, intent.created event and delivery, as stored. */
async function stored(ids: string[]): Promise<Map<string, { state: string; events: number; deliveries: number }>> {
  const rows = await sql.all<{ id: string; state: string; events: number; deliveries: number }>(
    `SELECT i.id, i.state,
            (SELECT count(*) FROM events e WHERE e.intent_id = i.id AND e.type = 'intent.created') AS events,
            (SELECT count(*) FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.intent_id = i.id AND e.type = 'intent.created') AS deliveries
       FROM intents i`,
  );
  const want = new Set(ids);
  return new Map(rows.filter((r) => want.has(r.id)).map((r) => [r.id, { state: r.state, events: Number(r.events), deliveries: Number(r.deliveries) }]));
}

/** Restart on the same database: every answered create is there with its event and delivery, and the restarted server creates as before. */
async function restartedWithEvery(acked: string[]): Promise<void> {
  current = await serve();
  const rows = await stored(acked);
  expect(rows.size).toBe(acked.length);
  for (const r of rows.values()) expect(r).toEqual({ state: 'created', events: 1, deliveries: 1 });
  expect((await create(current)).status).toBe(201);
}

it('creates read back with their event and delivery, and their intent.created webhooks arrive', async () => {
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => create(current, { ...BODY, reference: `r${i}` })));
  for (const a of answers) expect(a.status, JSON.stringify(a.json)).toBe(201);
  const ids = answers.map((a) => a.json.intent.id as string);
  for (const [i, a] of answers.entries()) {
    const got = await fetch(`${current.url}/v1/intents/${a.json.intent.id}`, { headers: { Authorization: `Bearer ${key}` } });
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual({ intent: { ...a.json.intent } });
    expect(a.json.intent.reference).toBe(`r${i}`);
  }
  const rows = await stored(ids);
  expect(rows.size).toBe(40);
  for (const r of rows.values()) expect(r).toEqual({ state: 'created', events: 1, deliveries: 1 });
  // On SQLite they were written by the writer thread (PostgreSQL: in the event loop's transactions).
  if (sqlite) expect(await metric(current, 'payforge_writer_writes_total')).toBeGreaterThanOrEqual(40);
  await rx.waitFor(40, { timeoutMs: 20_000 });
  const hooks = rx.requests.map((r) => JSON.parse(r.body) as { type: string; data: { intent: { id: string } } });
  expect(ids).toHaveLength(40);
  // Each event shows the intent exactly as its create answered it.
  for (const a of answers) expect(hooks.find((h) => h.type === 'intent.created' && h.data.intent.id === a.json.intent.id)?.data.intent).toEqual(a.json.intent);
}, 60_000);

it('concurrent creates with one Idempotency-Key make one intent, and a repeat replays it', async () => {
  const headers = { 'Idempotency-Key': 'same-key-1' };
  const answers = await Promise.all(Array.from({ length: 16 }, () => create(current, BODY, headers)));
  const ok = answers.filter((a) => a.status === 201);
  expect(ok.length).toBeGreaterThan(0);
  expect(new Set(ok.map((a) => a.json.intent.id)).size).toBe(1);
  for (const a of answers.filter((x) => x.status !== 201)) expect(a).toMatchObject({ status: 409, json: { error: { code: 'idempotency.in_progress' } } });
  const again = await create(current, BODY, headers);
  expect(again.status).toBe(201);
  expect(again.json.intent.id).toBe(ok[0]!.json.intent.id);
  const rows = await sql.all<{ n: number }>("SELECT count(*) AS n FROM intents WHERE idempotency_key = 'same-key-1'");
  expect(Number(rows[0]!.n)).toBe(1);
  // Another body under the same key: refused, nothing written.
  expect(await create(current, { ...BODY, amount: '2' }, headers)).toMatchObject({ status: 422, json: { error: { code: 'idempotency.key_reused' } } });
}, 60_000);

it('intents created on the writer expire at their deadline, each with its intent.expired event', async () => {
  const answers = await Promise.all(Array.from({ length: 20 }, () => create(current, { ...BODY, ttlSeconds: 1 })));
  for (const a of answers) expect(a.status, JSON.stringify(a.json)).toBe(201);
  const ids = answers.map((a) => a.json.intent.id as string);
  // Armed by the follow after the writer's COMMIT (or, were that missed, by the live scan: the
  // writer's commits are another connection's, so the 5-second scan reads them).
  const end = Date.now() + 20_000;
  for (;;) {
    const rows = await sql.all<{ id: string; state: string; expired: number }>(
      `SELECT i.id, i.state, (SELECT count(*) FROM events e WHERE e.intent_id = i.id AND e.type = 'intent.expired') AS expired FROM intents i WHERE i.id IN (${ids.map((id) => `'${id}'`).join(', ')})`,
    );
    if (rows.length === 20 && rows.every((r) => r.state === 'expired' && Number(r.expired) === 1)) break;
    if (Date.now() > end) throw new Error(`not all expired: ${JSON.stringify(rows.filter((r) => r.state !== 'expired').map((r) => r.state))}`);
    await Bun.sleep(50);
  }
}, 60_000);

it('a create whose write fails answers with the error envelope; the creates beside it commit', async () => {
  // A real refusal by the database for one row (a trigger, installed beside the running server).
  if (sqlite) {
    await sql.run("CREATE TRIGGER refuse_boom BEFORE INSERT ON intents WHEN NEW.reference = 'boom' BEGIN SELECT RAISE(ABORT, 'refused by test trigger'); END");
  } else {
    await sql.run("CREATE FUNCTION refuse_boom() RETURNS trigger AS $$ BEGIN IF NEW.reference = 'boom' THEN RAISE EXCEPTION 'refused by test trigger'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql");
    await sql.run('CREATE TRIGGER refuse_boom BEFORE INSERT ON intents FOR EACH ROW EXECUTE FUNCTION refuse_boom()');
  }
  try {
    const refs = Array.from({ length: 25 }, (_, i) => (i === 12 ? 'boom' : `ok${i}`));
    const answers = await Promise.all(refs.map((reference) => create(current, { ...BODY, reference })));
    for (const [i, a] of answers.entries()) {
      if (refs[i] === 'boom') {
        expect(a.status).toBe(500);
        expect(a.json).toMatchObject({ error: { code: 'internal.error' } });
        expect(a.json.error.details.request_id).toMatch(/^req_/);
      } else {
        expect(a.status, JSON.stringify(a.json)).toBe(201);
      }
    }
    const ids = answers.filter((a) => a.status === 201).map((a) => a.json.intent.id as string);
    const rows = await stored(ids);
    expect(rows.size).toBe(24);
    for (const r of rows.values()) expect(r).toEqual({ state: 'created', events: 1, deliveries: 1 });
    const boom = await sql.all<{ n: number }>("SELECT count(*) AS n FROM intents WHERE reference = 'boom'");
    expect(Number(boom[0]!.n)).toBe(0);
  } finally {
    await sql.run(sqlite ? 'DROP TRIGGER refuse_boom' : 'DROP TRIGGER refuse_boom ON intents');
  }
  // The writer goes on as before.
  expect((await create(current)).status).toBe(201);
}, 60_000);


/** Until `n` creates of a storm are answered (polled with a deadline). */
async function untilAnswered(acked: string[], n: number): Promise<void> {
  const end = Date.now() + 30_000;
  while (acked.length < n) {
    if (Date.now() > end) throw new Error(`only ${acked.length} creates answered in 30 s`);
    await Bun.sleep(5);
  }
}
it('a kill -9 during a storm of creates loses no answered create: each is stored with its event and delivery after a restart', async () => {
  const acked: string[] = [];
  let killed = false;
  const worker = async () => {
    while (!killed) {
      let a: { status: number; json: any };
      try {
        a = await create(current);
      } catch {
        return; // the connection died with the process: not answered
      }
      expect(a.status, JSON.stringify(a.json)).toBe(201);
      acked.push(a.json.intent.id);
    }
  };
  const workers = Array.from({ length: 16 }, worker);
  await untilAnswered(acked, 300);
  current.proc.kill('SIGKILL');
  killed = true;
  await current.proc.exited;
  await Promise.all(workers);

  await restartedWithEvery(acked);
}, 90_000);

it('a SIGTERM during a storm of creates stops cleanly: every answered create is stored with its event and delivery, no request is left hanging', async () => {
  const acked: string[] = [];
  let stopping = false;
  const worker = async () => {
    for (;;) {
      let a: { status: number; json: any };
      try {
        a = await create(current);
      } catch {
        if (stopping) return; // refused or cut: the server had stopped listening, not answered
        throw new Error('a create failed before the stop');
      }
      if (stopping && a.status !== 201) return;
      expect(a.status, JSON.stringify(a.json)).toBe(201);
      acked.push(a.json.intent.id);
    }
  };
  const workers = Array.from({ length: 16 }, worker);
  await untilAnswered(acked, 300);
  stopping = true;
  current.proc.kill('SIGTERM');
  // A clean stop (exit 0), and every request in flight answered or cut (the workers all return).
  expect(await current.proc.exited).toBe(0);
  await Promise.all(workers);

  await restartedWithEvery(acked);
}, 90_000);
