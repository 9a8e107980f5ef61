// Issue 12 / contract 13: the database stopped and started again under create load, with three
// real `payforge serve` processes on it. While it is down every instance answers: /readyz 503,
// requests 503 store.unavailable with Retry-After and details.retry_after, never a hang, never a
// crash (each process stays up and keeps its port). Once it is back the instances recover by
// themselves (no restart), and nothing acknowledged is lost: every intent that got a 201 exists
// afterwards with its intent.created event. Once with a fast shutdown (sessions ended, as a
// restart does) and once with an immediate one (as a crash of the database server does).
import { SQL } from 'bun';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, waitFor } from '../support/api';
import { startAnvil, type Anvil } from '../support/evm/anvil';
import { startInstances, type Instance, type Instances } from '../support/instances';
import { freshDatabaseUrl, pgCluster, type PgCluster } from '../support/postgres';
import { BASE_SEPOLIA, intentBody, type ApiResponse } from '../support/server';

let anvil: Anvil;
let pg: PgCluster;
let db: string;
let cluster: Instances;
let key: string;

beforeAll(async () => {
  anvil = await startAnvil('base');
  db = await freshDatabaseUrl();
  pg = await pgCluster();
  cluster = await startInstances({ db, count: 3, config: { networks: { [BASE_SEPOLIA]: { rpc: [anvil.url] } } } });
  ({ key } = await cluster.account());
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  await anvil?.stop();
});

interface Outcome {
  instance: string;
  status: number;
  body: any;
  headers: Headers;
  /** Set when no HTTP answer came at all: a refused or reset connection, or our hang guard. */
  failure?: string;
}

/** A request that must be answered: a connection error or no answer within the guard is recorded as such. */
async function answered(fn: (signal: AbortSignal) => Promise<ApiResponse>, instance: string): Promise<Outcome> {
  try {
    const r = await fn(AbortSignal.timeout(30_000));
    return { instance, status: r.status, body: r.body, headers: r.headers };
  } catch (e) {
    return { instance, status: 0, body: null, headers: new Headers(), failure: String(e) };
  }
}

async function post(instanceIndex: number, body: unknown, signal: AbortSignal): Promise<ApiResponse> {
  const inst = cluster.pick(instanceIndex);
  const res = await fetch(`${inst.url}/v1/intents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Creates in `workers` loops over every instance until stopped; every answer kept. */
function load(workers: number) {
  const outcomes: Outcome[] = [];
  let stop = false;
  let n = 0;
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = w; !stop && cluster.live().length > 0; i += workers) {
      const inst = cluster.pick(i).name;
      const o = await answered((signal) => post(i, intentBody({ reference: `outage-${n++}` }), signal), inst);
      outcomes.push(o);
      // A client told to come back later does so (pacing only: a 503 loop would eat the CPU).
      if (o.status === 503) await Bun.sleep(250);
    }
  });
  return {
    outcomes,
    acked: () => outcomes.filter((o) => o.status === 201).length,
    async stop() {
      stop = true;
      await Promise.all(loops);
    },
  };
}

/** Poll /readyz until `status`; the failure names what it answered last and the instance's log. */
async function readyzBecomes(inst: Instance, status: number): Promise<void> {
  let last = -1;
  try {
    await waitFor(async () => (last = await inst.readyz()) === status, 60_000, `${inst.name} /readyz ${status}`);
  } catch (e) {
    throw new Error(`${(e as Error).message}: last answer ${last} (0 = none), ${inst.alive() ? 'running' : 'exited'}\n${inst.logs().slice(-3000)}`);
  }
}

function expectUnavailable(o: Outcome): void {
  expect(o.failure, `no answer from ${o.instance}`).toBeUndefined();
  const e = expectError({ status: o.status, body: o.body, headers: o.headers }, 503, 'store.unavailable');
  expect(Number.isInteger(e.details.retry_after), JSON.stringify(o.body)).toBe(true);
  expect(e.details.retry_after as number).toBeGreaterThan(0);
  expect(o.headers.get('retry-after')).toBe(String(e.details.retry_after));
}

/** Under `traffic`: the database goes down (503s everywhere), comes back, every instance creates again. */
async function outageUnder(traffic: ReturnType<typeof load>, mode: 'fast' | 'immediate'): Promise<void> {
  await waitFor(() => traffic.acked() >= 30, 60_000, '30 creates acknowledged before the stop');
  await pg.stop(mode);
  const downFrom = traffic.outcomes.length;
  try {
    // Every instance notices by itself and says so.
    for (const inst of cluster.live()) await readyzBecomes(inst, 503);
    // A read and a write on every instance: answered at once, with the contract's 503.
    const probe = traffic.outcomes.find((o) => o.status === 201)?.body.intent.id ?? 'pi_000000000000000000000000';
    for (let i = 0; i < cluster.live().length; i++) {
      const inst = cluster.pick(i);
      expectUnavailable(await answered((signal) => post(i, intentBody(), signal), inst.name));
      expectUnavailable(await answered(() => inst.api(key).get(`/v1/intents/${probe}`), inst.name));
    }
    await waitFor(() => traffic.outcomes.slice(downFrom).some((o) => o.status === 503), 30_000, 'a 503 under load while down');
  } finally {
    await pg.start();
  }

  // No restart of any instance: they reconnect by themselves.
  for (const inst of cluster.all) {
    expect(inst.alive(), `instance ${inst.name} died:\n${inst.logs()}`).toBe(true);
    await readyzBecomes(inst, 200);
  }
  const upFrom = traffic.acked();
  await waitFor(() => traffic.acked() >= upFrom + 30, 60_000, '30 more creates acknowledged after the restart');
  // Each instance, not just some, creates again.
  for (let i = 0; i < 3; i++) {
    const inst = cluster.pick(i);
    await waitFor(async () => (await answered((signal) => post(i, intentBody(), signal), inst.name)).status === 201, 30_000, `a 201 from ${inst.name}`);
  }
}

describe('the database stopped and started again under load', () => {
  for (const mode of ['fast', 'immediate'] as const) {
    it(`${mode} shutdown: 503 store.unavailable and /readyz 503 while down, recovery by itself, no acknowledged create lost`, async () => {
      const traffic = load(6);
      try {
        await outageUnder(traffic, mode);
      } finally {
        await traffic.stop();
      }

      // Every answer was a 201 or the contract's 503; never a 5xx of another kind, never silence.
      const other = traffic.outcomes.filter((o) => o.status !== 201 && o.status !== 503);
      expect(other.map((o) => `${o.instance}: ${o.status} ${o.failure ?? JSON.stringify(o.body)}`), cluster.logs()).toEqual([]);
      for (const o of traffic.outcomes.filter((x) => x.status === 503)) expectUnavailable(o);
      expect(cluster.live().map((i) => i.name).sort()).toEqual(['a', 'b', 'c']);

      // Nothing acknowledged is lost: each 201 is an intent with its intent.created event.
      const acked = traffic.outcomes.filter((o) => o.status === 201).map((o) => o.body.intent.id as string);
      expect(new Set(acked).size).toBe(acked.length);
      const sql = new SQL({ url: db, max: 1 });
      try {
        const rows = new Set((await sql`SELECT id FROM intents`).map((r: { id: string }) => r.id));
        const created = new Set((await sql`SELECT intent_id FROM events WHERE type = 'intent.created'`).map((r: { intent_id: string }) => r.intent_id));
        expect(acked.filter((id) => !rows.has(id))).toEqual([]);
        expect(acked.filter((id) => !created.has(id))).toEqual([]);
      } finally {
        await sql.close();
      }
      // And the service shows them: a sample read back through the API, spread over the instances.
      const sample = acked.filter((_, i) => i % Math.max(1, Math.floor(acked.length / 60)) === 0);
      const reads = await Promise.all(sample.map((id, i) => cluster.pick(i).api(key).get(`/v1/intents/${id}`)));
      expect(reads.filter((r) => r.status !== 200).map((r) => r.body)).toEqual([]);
    }, 300_000);
  }
});
