// kill -9 of a real `payforge serve` in the middle of bursts of creates and cancels: the group
// committer's queue is hundreds deep, so its batches close at their time budget and go a batch per
// turn of the event loop (c92883c), and every cancel is queued while the create it depends on may
// still be in an earlier batch. After the kill: every create answered 201 is stored with exactly
// one intent.created event, every cancel answered 200 is stored as cancelled, and per intent the
// events and their deliveries are in the order the moves were made (created before cancelled).
// On the engine under test (SQLite file or PostgreSQL).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../support/cli';
import { serveRig, type ServeRig } from '../support/serve-rig';

let rig: ServeRig;
beforeAll(async () => {
  rig = await serveRig();
});
afterAll(() => rig.close());

it('loses no answered create or cancel and keeps each intent\'s events and deliveries in order', async () => {
  const { tdb, rx, sql } = rig;
  const config = join(tdb.dir, 'config.json');
  writeFileSync(config, JSON.stringify({ rateLimit: { perSecond: 100_000, burst: 100_000 } }));
  const s = await rig.serve(['serve', '--bootstrap', '--db', tdb.db, '--config', config, '--port', '0']);
  const [account] = await sql.all<{ id: string }>('SELECT id FROM accounts');
  const set = await runCli(['webhooks', 'set-endpoint', '--db', tdb.db, '--config', config, '--account', account!.id, '--mode', 'test', '--url', rx.url('/hooks')]);
  expect(set.code, set.stderr).toBe(0);

  const headers = { Authorization: `Bearer ${s.testKey!}`, 'Content-Type': 'application/json' };
  const body = JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '1.25', requestor: `0x${'22'.repeat(20)}` });
  const created: string[] = [];
  const cancelled: string[] = [];
  let killed = false;
  const one = async () => {
    const res = await fetch(`${s.url}/v1/intents`, { method: 'POST', headers, body });
    if (res.status !== 201) throw new Error(`create ${res.status}: ${await res.text()}`);
    const id = ((await res.json()) as { intent: { id: string } }).intent.id;
    if (!killed) created.push(id);
    // Every other one: its cancel right away (queued while its create may be in an earlier batch).
    if (created.length % 2 === 0) {
      const c = await fetch(`${s.url}/v1/intents/${id}/cancel`, { method: 'POST', headers: { Authorization: headers.Authorization } });
      if (c.status !== 200) throw new Error(`cancel ${c.status}: ${await c.text()}`);
      if (!killed) cancelled.push(id);
    }
  };
  // Bursts of 400 at once (a queue far deeper than one 8 ms batch takes), until the kill.
  const load = (async () => {
    while (!killed) await Promise.allSettled(Array.from({ length: 400 }, one));
  })();
  // Killed once enough was answered, in the middle of a burst.
  while (cancelled.length < 1500) await Bun.sleep(5);
  killed = true;
  s.proc.kill('SIGKILL');
  await s.proc.exited;
  await load;

  const rows = await sql.all<{ id: string; state: string }>('SELECT id, state FROM intents');
  const state = new Map(rows.map((r) => [r.id, r.state]));
  expect(created.filter((id) => !state.has(id))).toEqual([]);
  expect(cancelled.filter((id) => state.get(id) !== 'cancelled')).toEqual([]);
  const events = await sql.all<{ intent_id: string; type: string; seq: number; d: number | null }>(
    'SELECT e.intent_id, e.type, e.seq, (SELECT min(d.seq) FROM webhook_deliveries d WHERE d.event_id = e.id) AS d FROM events e WHERE e.intent_id IS NOT NULL ORDER BY e.seq',
  );
  const per = new Map<string, Array<{ type: string; d: number | null }>>();
  for (const e of events) per.set(e.intent_id, [...(per.get(e.intent_id) ?? []), { type: e.type, d: e.d === null ? null : Number(e.d) }]);
  const wrong: string[] = [];
  for (const [id, st] of state) {
    const evs = per.get(id) ?? [];
    const want = st === 'cancelled' ? ['intent.created', 'intent.cancelled'] : ['intent.created'];
    if (JSON.stringify(evs.map((e) => e.type)) !== JSON.stringify(want)) wrong.push(`${id} ${st}: ${evs.map((e) => e.type).join(',')}`);
    // Each event has its delivery, in the events' order.
    const ds = evs.map((e) => e.d);
    if (ds.some((d) => d === null) || ds.some((d, i) => i > 0 && d! <= ds[i - 1]!)) wrong.push(`${id}: deliveries ${JSON.stringify(ds)}`);
  }
  expect(wrong).toEqual([]);
  expect(created.length).toBeGreaterThan(3000);
}, 180_000);
