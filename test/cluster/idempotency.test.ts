// Issue 12 / contract 13: three real `payforge serve` processes on one PostgreSQL database behave
// as one service for idempotent creates. 16 keys, each sent 4 times with the same body, all 64
// requests at once and spread so that every key reaches at least two instances: exactly one
// intent per key, every replay the first answer again, nothing 5xx. A key still in flight
// elsewhere answers 409 idempotency.in_progress, which a client retries (as the contract says);
// the same key with another body is 422 idempotency.key_reused on every instance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, expectError, waitFor } from '../support/api';
import { startAnvil, type Anvil } from '../support/evm/anvil';
import { startInstances, type Instance, type Instances } from '../support/instances';
import { freshDatabaseUrl } from '../support/postgres';
import { BASE_SEPOLIA, intentBody, type ApiResponse } from '../support/server';

let anvil: Anvil;
let cluster: Instances;
let key: string;

beforeAll(async () => {
  anvil = await startAnvil('base');
  cluster = await startInstances({ db: await freshDatabaseUrl(), count: 3, config: { networks: { [BASE_SEPOLIA]: { rpc: [anvil.url] } } } });
  ({ key } = await cluster.account());
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  await anvil?.stop();
});

/** Every answer one logical send got: 409 in_progress is retried until something else comes back. */
async function send(inst: Instance, idemKey: string, body: Record<string, unknown>): Promise<ApiResponse[]> {
  const answers: ApiResponse[] = [];
  await waitFor(
    async () => {
      const r = await inst.api(key).post('/v1/intents', body, { 'idempotency-key': idemKey });
      answers.push(r);
      return !(r.status === 409 && r.body?.error?.code === 'idempotency.in_progress');
    },
    60_000,
    `an answer other than in_progress for ${idemKey} on ${inst.name}`,
  );
  return answers;
}

const run = Math.random().toString(36).slice(2, 8);
const bodyOf = (k: number) => intentBody({ amount: `${k + 1}.25`, reference: `multi-${run}-${k}`, metadata: { key: String(k) } });
const keyOf = (k: number) => `multi-${run}-${k}`;

describe('three instances, one database: idempotent creates', () => {
  it('64 concurrent creates on 16 shared keys over three instances: one intent per key, identical replays, no 5xx', async () => {
    expect(cluster.live()).toHaveLength(3);
    const sends: Array<{ k: number; inst: Instance }> = [];
    // Each key's four sends go to instances k, k+1, k+2, k+3 (mod 3): every key meets 2+ instances.
    for (let k = 0; k < 16; k++) for (let r = 0; r < 4; r++) sends.push({ k, inst: cluster.pick(k + r) });
    const results = await Promise.all(sends.map(async (s) => ({ ...s, answers: await send(s.inst, keyOf(s.k), bodyOf(s.k)) })));

    const every = results.flatMap((r) => r.answers);
    const bad = every.filter((a) => a.status >= 500);
    expect(bad.map((a) => `${a.status} ${JSON.stringify(a.body)}`), cluster.logs()).toEqual([]);
    // Anything before the final answer was the contract's in-flight refusal, envelope and all.
    for (const r of results) for (const a of r.answers.slice(0, -1)) expectError(a, 409, 'idempotency.in_progress');

    const ids = new Set<string>();
    for (let k = 0; k < 16; k++) {
      const finals = results.filter((r) => r.k === k).map((r) => r.answers.at(-1)!);
      expect(finals.map((f) => f.status), JSON.stringify(finals.map((f) => f.body))).toEqual([201, 201, 201, 201]);
      // One create and three replays of it, byte for byte the same intent.
      expect(finals.map((f) => f.headers.get('idempotent-replayed')).sort()).toEqual([null, 'true', 'true', 'true'].sort());
      for (const f of finals) expect(f.body).toEqual(finals[0]!.body);
      expect(finals[0]!.body.intent.idempotencyKey).toBe(keyOf(k));
      expect(finals[0]!.body.intent.amount).toBe(`${k + 1}.25`);
      ids.add(finals[0]!.body.intent.id);
    }
    expect(ids.size).toBe(16);

    // What the database holds, read back through another instance: 16 intents, one event each.
    const api = cluster.pick(1).api(key);
    const listed = await api.get('/v1/intents?limit=100');
    expect(listed.status).toBe(200);
    expect(new Set((listed.body.intents as Array<{ id: string }>).map((i) => i.id))).toEqual(ids);
    for (const id of ids) expect((await eventsOf(api, id)).map((e) => e.type)).toEqual(['intent.created']);
  }, 180_000);

  it('the same key with another body is 422 idempotency.key_reused on every instance; the first body still replays', async () => {
    const k = 3;
    const first = await cluster.pick(0).api(key).post('/v1/intents', bodyOf(k), { 'idempotency-key': keyOf(k) });
    expect(first.status).toBe(201);
    for (const inst of cluster.live()) {
      expectError(await inst.api(key).post('/v1/intents', { ...bodyOf(k), amount: '99' }, { 'idempotency-key': keyOf(k) }), 422, 'idempotency.key_reused');
      const again = await inst.api(key).post('/v1/intents', bodyOf(k), { 'idempotency-key': keyOf(k) });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
    }
  });

  it('two bodies racing on one fresh key across instances: one wins everywhere, the other is key_reused, one intent', async () => {
    const raceKey = `race-${run}`;
    const a = intentBody({ amount: '7', reference: `race-a-${run}` });
    const b = intentBody({ amount: '8', reference: `race-b-${run}` });
    const sends = Array.from({ length: 12 }, (_, i) => ({ body: i % 2 === 0 ? a : b, inst: cluster.pick(i) }));
    const finals = (await Promise.all(sends.map((s) => send(s.inst, raceKey, s.body)))).map((answers) => answers.at(-1)!);
    const won = finals.filter((f) => f.status === 201);
    const lost = finals.filter((f) => f.status !== 201);
    expect(won.length, JSON.stringify(finals.map((f) => [f.status, f.body?.error?.code]))).toBe(6);
    for (const w of won) expect(w.body).toEqual(won[0]!.body);
    for (const l of lost) expectError(l, 422, 'idempotency.key_reused');
    const winner = won[0]!.body.intent.reference as string;
    const api = cluster.pick(2).api(key);
    expect((await api.get(`/v1/intents?reference=${winner}`)).body.intents).toHaveLength(1);
    const loser = winner === a.reference ? b.reference : a.reference;
    expect((await api.get(`/v1/intents?reference=${loser}`)).body.intents).toHaveLength(0);
  });
});
