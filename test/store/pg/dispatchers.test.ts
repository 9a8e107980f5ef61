// Two dispatchers (two instances' pools) on one real PostgreSQL with the real migrations and a
// real loopback receiver: every event delivered, none twice while both run (SKIP LOCKED claims),
// and the rows a dead instance had leased are sent by the other once the lease runs out.
import { SQL } from 'bun';
import { afterEach, describe, expect, it } from 'vitest';
import { statesTagged } from '../../../machines/judge';
import { newId } from '../../../src/domain/ids';
import { pgStoreOn, type PgStore } from '../../../src/store/pg/open';
import { createDispatcher } from '../../../src/webhooks/dispatcher';
import { startReceiver, type Receiver } from '../../support/receiver';
import { testConfig } from '../../webhooks/factory';
import { pgTestDb, type PgTestDb, until } from './db';

const STATES = { live: statesTagged('live'), watching: statesTagged('watching') };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world(): Promise<{ t: PgTestDb; rx: Receiver; stores: PgStore[] }> {
  const t = await pgTestDb();
  const rx = startReceiver();
  // Two instances: two pools on one database, each its own store.
  const stores = [0, 1].map(() => pgStoreOn(new SQL({ url: t.url, max: 3 }), { states: STATES }));
  cleanups.push(() => t.dispose(), () => rx.close(), ...stores.map((s) => () => s.close()));
  await t.sql`INSERT INTO accounts (id, name, plan, created_at) VALUES ('acct_a', 'a', 'pro', 1)`;
  await stores[0]!.repos.endpoints.saveUrl({ accountId: 'acct_a', mode: 'test', url: rx.url('/hooks'), now: 1, newSecret: () => 'whsec_test' });
  return { t, rx, stores };
}

async function queue(store: PgStore, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const eventId = newId('evt');
    ids.push(eventId);
    await store.transact((tx) =>
      tx.outbox.append({
        envelope: { eventId, type: 'intent.created', createdAt: new Date().toISOString(), livemode: false, data: {} as never },
        accountId: 'acct_a', mode: 'test', intentId: null, createdAt: Date.now(),
      }),
    );
  }
  return ids;
}

const startDispatcher = (store: PgStore, webhooks = {}) => {
  const d = createDispatcher({ dispatch: store.repos.dispatch, durable: () => store.durable(), config: testConfig({ allowPrivateUrls: true, ...webhooks }) });
  cleanups.push(() => d.stop());
  d.start();
  return d;
};

describe('dispatchers of two instances on one PostgreSQL', () => {
  it('deliver every event once between them', async () => {
    const { t, rx, stores } = await world();
    const ids = await queue(stores[0]!, 120);
    const ds = stores.map((s) => startDispatcher(s, { perEndpointConcurrency: 4, concurrency: 8 }));
    await rx.waitFor(120, { timeoutMs: 30_000 });
    await until(async () => (await t.sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'delivered'`)[0].n as number, (n) => n === 120);
    const got = rx.requests.map((r) => r.headers['webhook-id']);
    expect(new Set(got).size).toBe(120);
    expect(got.sort()).toEqual([...ids].sort());
    // One attempt per row between them: neither sent a row the other had claimed.
    expect(ds[0]!.stats().attempts + ds[1]!.stats().attempts).toBe(120);
  });

  it('rows leased by an instance that died are sent by the other once the lease runs out', async () => {
    const { t, rx, stores } = await world();
    const ids = await queue(stores[0]!, 5);
    // The first instance claims every row and dies before sending any.
    const now = Date.now();
    const claimed = await stores[0]!.repos.dispatch.claim({ now, leaseUntil: now + 500, limit: 10, perEndpoint: 10, inFlight: new Map(), deep: true });
    expect(claimed).toHaveLength(5);
    await stores[0]!.close();
    startDispatcher(stores[1]!);
    const reqs = await rx.waitFor(5, { timeoutMs: 30_000 });
    expect(Date.now()).toBeGreaterThanOrEqual(now + 500);
    expect(reqs.map((r) => r.headers['webhook-id']).sort()).toEqual([...ids].sort());
    await until(async () => (await t.sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'delivered'`)[0].n as number, (n) => n === 5);
  });
});
