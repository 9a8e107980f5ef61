// Webhook endpoints, deliveries, replays and the dispatcher's claims on a real PostgreSQL with the
// real migrations: the SQLite cases (test/webhooks/units.test.ts claim and record) on the PG
// dispatch store, plus what only several instances need: claims that skip each other's locked rows.
import { SQL } from 'bun';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids';
import { queueReplay } from '../../../src/store/pg/event-replay';
import type { Pg } from '../../../src/store/pg/sql';
import { countPendingDeliveries, createPgDeliveryRepo } from '../../../src/store/pg/webhook-deliveries';
import { createPgDispatchStore, type DispatchClaimArgs } from '../../../src/store/pg/webhook-dispatch';
import { createPgWebhookEndpointRepo, restoreEndpoint } from '../../../src/store/pg/webhook-endpoints';
import { type PgTestDb, pgTestDb } from './db';

let t: PgTestDb;
beforeEach(async () => {
  t = await pgTestDb();
  for (const id of ['acct_a', 'acct_b']) await t.sql`INSERT INTO accounts (id, name, plan, created_at) VALUES (${id}, ${id}, 'pro', 1)`;
});
afterEach(() => t.dispose());

async function event(accountId = 'acct_a', createdAt = 1, mode = 'test'): Promise<string> {
  const id = newId('evt');
  await t.sql`INSERT INTO events (id, account_id, mode, intent_id, type, payload, created_at)
              VALUES (${id}, ${accountId}, ${mode}, 'pi_1', 'intent.created', ${JSON.stringify({ eventId: id })}, ${createdAt})`;
  return id;
}
async function delivery(url: string, nextAttemptAt: number, accountId = 'acct_a'): Promise<string> {
  const id = newId('whd');
  await t.sql`INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, created_at)
              VALUES (${id}, ${await event(accountId)}, ${accountId}, 'test', ${url}, 'pending', 0, ${nextAttemptAt}, ${nextAttemptAt})`;
  return id;
}
const many = async (url: string, n: number, at: number) => {
  const ids = [];
  for (let i = 0; i < n; i++) ids.push(await delivery(url, at));
  return ids;
};
const endpoint = (accountId = 'acct_a', url = 'https://a.example') =>
  t.sql`INSERT INTO webhook_endpoints (account_id, mode, url, secret, created_at, updated_at) VALUES (${accountId}, 'test', ${url}, 'whsec_1', 1, 1)`;

describe('webhook endpoints (PostgreSQL)', () => {
  it('saveUrl creates with a new secret, then keeps it; rotation keeps the previous one signing; restore removes', async () => {
    const repo = createPgWebhookEndpointRepo(t.sql);
    let made = 0;
    const newSecret = () => `whsec_${++made}`;
    expect(await repo.get('acct_a', 'test')).toBeNull();
    expect(await repo.saveUrl({ accountId: 'acct_a', mode: 'test', url: 'https://a.example', now: 10, newSecret })).toEqual({ url: 'https://a.example', secret: 'whsec_1' });
    expect(await repo.saveUrl({ accountId: 'acct_a', mode: 'test', url: 'https://b.example', now: 20, newSecret })).toEqual({ url: 'https://b.example', secret: 'whsec_1' });
    expect(made).toBe(1);
    expect(await repo.get('acct_a', 'test')).toEqual({ url: 'https://b.example', secret: 'whsec_1', previousSecret: null, previousSecretExpiresAt: null });
    expect(await repo.listInfo('acct_a', 25)).toEqual([{ mode: 'test', url: 'https://b.example', updatedAt: 20, rotating: false }]);

    expect(await repo.rotateSecret({ accountId: 'acct_a', mode: 'test', secret: 'whsec_2', previousExpiresAt: 100, now: 30 })).toBe(true);
    expect(await repo.rotateSecret({ accountId: 'acct_a', mode: 'live', secret: 'whsec_x', previousExpiresAt: 100, now: 30 })).toBe(false);
    expect(await repo.get('acct_a', 'test')).toEqual({ url: 'https://b.example', secret: 'whsec_2', previousSecret: 'whsec_1', previousSecretExpiresAt: 100 });
    expect(await repo.listInfo('acct_a', 99)).toEqual([{ mode: 'test', url: 'https://b.example', updatedAt: 30, rotating: true }]);
    expect(await repo.listInfo('acct_a', 100)).toEqual([{ mode: 'test', url: 'https://b.example', updatedAt: 30, rotating: false }]);

    await restoreEndpoint(t.sql, 'acct_a', 'test', 'https://c.example', 40);
    expect((await repo.get('acct_a', 'test'))?.url).toBe('https://c.example');
    await restoreEndpoint(t.sql, 'acct_a', 'test', null, 50);
    expect(await repo.get('acct_a', 'test')).toBeNull();
  });
});

describe('webhook deliveries (PostgreSQL)', () => {
  it('lists newest first with filters, pages by seq, knows owners, and queues a retry to the current endpoint', async () => {
    const repo = createPgDeliveryRepo(t.sql);
    const a1 = await delivery('https://old.example', 1);
    const a2 = await delivery('https://old.example', 2);
    const b1 = await delivery('https://b.example', 3, 'acct_b');
    expect((await repo.list({}, 10)).map((d) => d.id)).toEqual([b1, a2, a1]);
    const mine = await repo.list({ accountId: 'acct_a', mode: 'test' }, 10);
    expect(mine.map((d) => d.id)).toEqual([a2, a1]);
    expect(mine[0]).toMatchObject({ accountId: 'acct_a', mode: 'test', eventType: 'intent.created', intentId: 'pi_1', attemptCount: 0, nextAttemptAt: 2, responseStatus: null });
    const seq = (await repo.seqOf(a2, 'acct_a', 'test'))!;
    expect(typeof seq).toBe('number');
    expect((await repo.list({ accountId: 'acct_a', beforeSeq: seq }, 10)).map((d) => d.id)).toEqual([a1]);
    expect(await repo.seqOf(a2, 'acct_b')).toBeNull();
    expect(await repo.owner(b1)).toEqual({ accountId: 'acct_b', mode: 'test' });
    expect(await repo.owner('whd_none')).toBeNull();
    expect(await repo.get(a1)).toMatchObject({ id: a1, url: 'https://old.example', status: 'pending', createdAt: 1 });
    expect(await countPendingDeliveries(t.sql)).toBe(3);

    const retry = (deliveryId: string, accountId = 'acct_a') => repo.queueRetry({ id: newId('whd'), deliveryId, accountId, mode: 'test', now: 99 });
    expect(await retry(a1)).toBe('no_endpoint');
    expect(await retry('whd_\u0000')).toBe('not_found');
    expect(await repo.get('whd_\u0000')).toBeNull();
    expect(await retry(b1)).toBe('not_found');
    await endpoint('acct_a', 'https://new.example');
    expect(await retry(a1)).toBe('queued');
    const [latest] = await repo.list({ accountId: 'acct_a' }, 1);
    expect(latest).toMatchObject({ url: 'https://new.example', eventId: (await repo.get(a1))!.eventId, status: 'pending', nextAttemptAt: 99, createdAt: 99 });
  });

  it('replay queues one delivery per event since a time, oldest first', async () => {
    const old = await event('acct_a', 5);
    const e1 = await event('acct_a', 10);
    const e2 = await event('acct_a', 20);
    await event('acct_b', 30);
    await event('acct_a', 30, 'live');
    expect(old).toBeTruthy();
    expect(await queueReplay(t.sql, { accountId: 'acct_a', mode: 'test', since: 10, url: 'https://r.example', now: 50 })).toBe(2);
    const rows = await t.sql`SELECT event_id, url, next_attempt_at FROM webhook_deliveries ORDER BY seq`;
    expect(rows.map((r: { event_id: string }) => r.event_id)).toEqual([e1, e2]);
    expect(await queueReplay(t.sql, { accountId: 'acct_a', mode: 'test', since: 1_000, url: 'https://r.example', now: 50 })).toBe(0);
  });
});

describe('dispatch claims (PostgreSQL)', () => {
  const base = (now: number, over: Partial<DispatchClaimArgs> = {}): DispatchClaimArgs => ({
    now, leaseUntil: now + 1000, limit: 10, perEndpoint: 4, inFlight: new Map(), deep: true, ...over,
  });
  const count = (url: string, rs: Array<{ url: string }>) => rs.filter((r) => r.url === url).length;

  it('claims at most perEndpoint rows per URL, counting those in flight, oldest due first; leases run out', async () => {
    await endpoint();
    const now = 1_000_000;
    await many('https://a', 20, now - 5000);
    await many('https://b', 3, now - 10);
    await many('https://c', 2, now + 60_000);
    const store = createPgDispatchStore(t.sql);
    const first = await store.claim(base(now));
    expect([count('https://a', first), count('https://b', first), count('https://c', first)]).toEqual([4, 3, 0]);
    expect(first.every((r) => r.leaseUntil === now + 1000)).toBe(true);
    expect(first[0]).toMatchObject({ accountId: 'acct_a', mode: 'test', attemptCount: 0, secret: 'whsec_1', previousSecret: null, previousSecretExpiresAt: null });
    expect(JSON.parse(first[0]!.payload!)).toEqual({ eventId: first[0]!.eventId });
    expect(await store.claim(base(now, { inFlight: new Map([['https://a', 4]]) }))).toEqual([]);
    expect(count('https://a', await store.claim(base(now, { inFlight: new Map([['https://a', 1]]) })))).toBe(3);
    expect(await store.claim(base(now + 1001, { leaseUntil: now + 2000, limit: 100, perEndpoint: 100 }))).toHaveLength(23);
  });

  it('a deep claim looks past a URL that filled up; a shallow one does not; `since` limits a wake to new rows', async () => {
    const now = 1_000_000;
    await many('https://a', 100, now - 5000);
    await many('https://b', 2, now - 4000);
    await many('https://c', 2, now - 10);
    const store = createPgDispatchStore(t.sql);
    expect((await store.claim(base(now, { deep: false }))).map((r) => r.url)).toEqual(Array(4).fill('https://a'));
    const saturated = { inFlight: new Map([['https://a', 4]]), now: now + 1, leaseUntil: now + 2000 };
    expect((await store.claim(base(now, { ...saturated, since: now - 100 }))).map((r) => r.url)).toEqual(Array(2).fill('https://c'));
    expect((await store.claim(base(now, { ...saturated, since: 0 }))).map((r) => r.url)).toEqual(Array(2).fill('https://b'));
  });

  it('a shallow claim with a URL at its limit stays a window of the oldest rows: it does not walk that URL\'s backlog to the rows behind it', async () => {
    const now = 1_000_000;
    await many('https://a', 100, now - 5000);
    await many('https://b', 2, now - 4000);
    const store = createPgDispatchStore(t.sql);
    const full = { inFlight: new Map([['https://a', 4]]) };
    expect(await store.claim(base(now, { ...full, deep: false }))).toEqual([]);
    expect((await store.claim(base(now, { ...full, deep: true }))).map((r) => r.url)).toEqual(Array(2).fill('https://b'));
  });

  it('drops a record whose lease was taken over (fencing); release gives a row back without an attempt', async () => {
    const [id] = await many('https://a', 1, 0);
    const store = createPgDispatchStore(t.sql);
    const now = 1_000_000;
    const [mine] = await store.claim(base(now, { leaseUntil: now + 10 }));
    const [theirs] = await store.claim(base(now + 11, { leaseUntil: now + 5000 }));
    expect(theirs!.id).toBe(id);
    const rec = { seq: mine!.seq, id: id!, status: 'pending' as const, attemptCount: 1, attemptedAt: now, responseStatus: 500, error: 'x', nextAttemptAt: now + 100 };
    expect(await store.record([{ ...rec, leaseUntil: mine!.leaseUntil }])).toBe(0);
    const row = async () => (await createPgDeliveryRepo(t.sql).get(id!))!;
    expect(await row()).toMatchObject({ attemptCount: 0 });
    expect(await store.record([{ ...rec, leaseUntil: theirs!.leaseUntil }])).toBe(1);
    expect(await row()).toMatchObject({ attemptCount: 1, nextAttemptAt: now + 100, responseStatus: 500, lastError: 'x', lastAttemptedAt: now });
    const [again] = await store.claim(base(now + 100, { leaseUntil: now + 9000 }));
    await store.release([{ seq: again!.seq, id: again!.id, leaseUntil: 1 }]); // not our lease: nothing
    expect(await store.claim(base(now + 100))).toEqual([]);
    await store.release([{ seq: again!.seq, id: again!.id, leaseUntil: again!.leaseUntil }]);
    const [back] = await store.claim(base(now + 100));
    expect(back).toMatchObject({ id, attemptCount: 1 });
    expect(await store.record([{ ...rec, status: 'delivered', attemptCount: 2, attemptedAt: now + 200, responseStatus: 200, error: null, nextAttemptAt: null, leaseUntil: back!.leaseUntil }])).toBe(1);
    expect(await row()).toMatchObject({ status: 'delivered', deliveredAt: now + 200, failedAt: null, nextAttemptAt: now + 100 });
    expect(await store.claim(base(now + 10_000))).toEqual([]);
  });

  it('recordAndClaim writes the records and releases, then claims, in one transaction', async () => {
    const [a, b, c] = await many('https://a', 3, 0);
    const store = createPgDispatchStore(t.sql);
    const now = 1_000_000;
    const first = await store.claim(base(now, { limit: 2, perEndpoint: 2 }));
    expect(first.map((r) => r.id).sort()).toEqual([a, b].sort());
    const [done, back] = first;
    const next = await store.recordAndClaim(
      [{ seq: done!.seq, id: done!.id, leaseUntil: done!.leaseUntil, status: 'delivered', attemptCount: 1, attemptedAt: now, responseStatus: 200, error: null, nextAttemptAt: null }],
      [{ seq: back!.seq, id: back!.id, leaseUntil: back!.leaseUntil }],
      base(now + 1, { limit: 5, perEndpoint: 5 }),
    );
    expect(next.map((r) => r.id).sort()).toEqual([back!.id, c].sort());
    expect(await createPgDeliveryRepo(t.sql).get(done!.id)).toMatchObject({ status: 'delivered', deliveredAt: now });
    expect(await store.recordAndClaim([], [], null)).toEqual([]);
    expect(await createPgDeliveryRepo(t.sql).countPending()).toBe(2);
  });

  it('SKIP LOCKED: a claim passes over rows another dispatcher is claiming, without waiting for it', async () => {
    const ids = await many('https://a', 6, 0);
    const other = new SQL({ url: t.url, max: 1 });
    try {
      let done!: () => void;
      const hold = new Promise<void>((r) => (done = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      // The other dispatcher is mid-claim: it holds the three oldest rows' locks.
      const busy = other.begin(async (tx) => {
        await tx.unsafe('SELECT seq FROM webhook_deliveries WHERE id = ANY($1::text[]) FOR UPDATE', [ids.slice(0, 3)]);
        locked();
        await hold;
      });
      await isLocked;
      const got = await createPgDispatchStore(t.sql).claim(base(1_000_000, { perEndpoint: 10 }));
      done();
      await busy;
      expect(got.map((r) => r.id).sort()).toEqual(ids.slice(3).sort());
    } finally {
      await other.close();
    }
  });

  it('two dispatchers claiming at once on their own connections never lease the same row', async () => {
    for (let u = 0; u < 5; u++) await many(`https://u${u}`, 40, 0);
    const pools = [new SQL({ url: t.url, max: 2 }), new SQL({ url: t.url, max: 2 })];
    try {
      const stores = pools.map((p) => createPgDispatchStore(p as unknown as Pg));
      const seen = new Map<string, number>();
      const claimLoop = async (s: ReturnType<typeof createPgDispatchStore>) => {
        for (let i = 0; i < 40; i++) {
          const got = await s.claim(base(1_000_000, { limit: 8, perEndpoint: 3, leaseUntil: 2_000_000 }));
          for (const r of got) seen.set(r.id, (seen.get(r.id) ?? 0) + 1);
          if (got.length === 0) break;
        }
      };
      await Promise.all([claimLoop(stores[0]!), claimLoop(stores[1]!), claimLoop(stores[0]!), claimLoop(stores[1]!)]);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      expect(seen.size).toBe(200);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });
});
