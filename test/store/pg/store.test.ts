// The PostgreSQL Store (src/store/pg/open.ts) on a real PostgreSQL: opening migrates, transact
// commits a transition's writes together or not at all, getForUpdate serializes concurrent
// transitions of one intent (no lost update), a deadlock victim is run again, ping and close.
import { afterEach, describe, expect, it } from 'vitest';
import { statesTagged } from '../../../machines/judge';
import { newId } from '../../../src/domain/ids';
import { toWire } from '../../../src/domain/intent';
import { openPgStore, type PgStore } from '../../../src/store/pg/open';
import { openStore } from '../../../src/store/store';
import { storedIntent } from '../../support/db';
import { freshDatabaseUrl } from '../../support/postgres';

const STATES = { live: statesTagged('live'), watching: statesTagged('watching') };
const opened: PgStore[] = [];
const open = async (url?: string) => {
  const s = await openPgStore(url ?? (await freshDatabaseUrl()), { states: STATES, max: 4 });
  opened.push(s);
  return s;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
});

const bump = (n: unknown) => String(Number(n ?? 0) + 1);

describe('openPgStore', () => {
  it('migrates on open (again a no-op), commits a transition\'s rows together, and rolls them back together', async () => {
    const url = await freshDatabaseUrl();
    const store = await open(url);
    await open(url);
    expect(store.engine).toBe('postgres');
    expect(store.durable()).toBeNull();
    await store.ping();
    const i = storedIntent();
    const envelope = { eventId: newId('evt'), type: 'intent.created' as const, createdAt: new Date(5).toISOString(), livemode: false, data: { intent: toWire(i) } };
    const got = await store.transact(async (tx) => {
      await tx.intents.insert(i);
      await tx.outbox.append({ envelope, accountId: i.accountId, mode: i.mode, intentId: i.id, createdAt: 5 });
      // The transaction reads its own writes; the pool does not see them yet.
      expect(await store.repos.intents.get(i.id)).toBeNull();
      return (await tx.intents.get(i.id))!.id;
    });
    expect(got).toBe(i.id);
    expect(await store.repos.intents.get(i.id)).toEqual(i);
    expect(await store.repos.events.payload(envelope.eventId, i.accountId, i.mode)).toBe(JSON.stringify(envelope));

    const j = storedIntent();
    await expect(
      store.transact(async (tx) => {
        await tx.intents.insert(j);
        await tx.outbox.append({ envelope: { ...envelope, eventId: newId('evt') }, accountId: j.accountId, mode: j.mode, intentId: j.id, createdAt: 6 });
        throw new Error('the transition failed');
      }),
    ).rejects.toThrow('the transition failed');
    expect(await store.repos.intents.get(j.id)).toBeNull();
    expect(await store.repos.events.timeline(j.id)).toEqual([]);
  });

  it('getForUpdate in transact serializes concurrent transitions of one intent: no update is lost', async () => {
    const a = await open();
    const i = storedIntent({ metadata: { n: '0' } });
    await a.repos.intents.insert(i);
    const step = (s: PgStore) =>
      s.transact(async (tx) => {
        const row = (await tx.intents.getForUpdate(i.id))!;
        await tx.intents.update({ ...row, metadata: { n: bump(row.metadata.n) } });
      });
    await Promise.all(Array.from({ length: 24 }, () => step(a)));
    expect((await a.repos.intents.get(i.id))!.metadata).toEqual({ n: '24' });
  });

  it('two stores on one database (two instances) serialize on the row too', async () => {
    const url = await freshDatabaseUrl();
    const [a, b] = [await open(url), await open(url)];
    const i = storedIntent({ metadata: { n: '0' } });
    await a.repos.intents.insert(i);
    const step = (s: PgStore) =>
      s.transact(async (tx) => {
        const row = (await tx.intents.getForUpdate(i.id))!;
        await tx.intents.update({ ...row, metadata: { n: bump(row.metadata.n) } });
      });
    await Promise.all(Array.from({ length: 20 }, (_, k) => step(k % 2 ? a : b)));
    expect((await b.repos.intents.get(i.id))!.metadata).toEqual({ n: '20' });
  });

  it('a transaction chosen as a deadlock victim is run again and both commit', async () => {
    const store = await open();
    const [x, y] = [storedIntent({ metadata: { n: '0' } }), storedIntent({ metadata: { n: '0' } })];
    await store.repos.intents.insert(x);
    await store.repos.intents.insert(y);
    let runs = 0;
    let firstLocks = 0;
    let bothHold!: () => void;
    const holding = new Promise<void>((r) => (bothHold = r));
    // Each locks one row, waits until the other holds its row, then asks for the other's: a
    // deadlock PostgreSQL breaks by failing one (40P01); transact runs that one again.
    const crossed = (first: string, second: string) =>
      store.transact(async (tx) => {
        runs++;
        const a = (await tx.intents.getForUpdate(first))!;
        if (++firstLocks === 2) bothHold();
        await holding;
        const b = (await tx.intents.getForUpdate(second))!;
        await tx.intents.update({ ...a, metadata: { n: bump(a.metadata.n) } });
        await tx.intents.update({ ...b, metadata: { n: bump(b.metadata.n) } });
      });
    await Promise.all([crossed(x.id, y.id), crossed(y.id, x.id)]);
    // At least one victim ran again (without the retry, Promise.all above rejects with 40P01). A
    // loaded machine can make PostgreSQL's deadlock check pick a victim more than once.
    expect(runs).toBeGreaterThanOrEqual(3);
    expect((await store.repos.intents.get(x.id))!.metadata).toEqual({ n: '2' });
    expect((await store.repos.intents.get(y.id))!.metadata).toEqual({ n: '2' });
  });

  it('two transactions that both find a row absent and insert it: the loser (unique violation) runs again, sees the row, and both resolve', async () => {
    const store = await open();
    const tx = `0x${'cd'.repeat(32)}`;
    let runs = 0;
    let bothLooked!: () => void;
    const looked = new Promise<void>((r) => (bothLooked = r));
    let looks = 0;
    // As recordFoundTransfer does for one transfer reported by two scans at once (SQLite's single
    // writer serializes them; PostgreSQL's READ COMMITTED lets both see no row).
    const recordOnce = () =>
      store.transact(async (t) => {
        runs++;
        const known = await t.payments.findByTx('eip155:84532', tx);
        if (++looks === 2) bothLooked();
        await looked;
        if (known) return 'known';
        await t.payments.insert({
          id: newId('pay'), accountId: 'acct_a', mode: 'test', chain: 'eip155:84532', token: 'USDC', tokenAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
          decimals: 6, amountBaseUnits: 1n, from: '0x1111111111111111111111111111111111111111', to: '0x2222222222222222222222222222222222222222',
          txSignature: tx, detectedAt: 1, intentId: null, status: 'unmatched', reason: 'no_open_intent',
        });
        return 'recorded';
      });
    expect((await Promise.all([recordOnce(), recordOnce()])).sort()).toEqual(['known', 'recorded']);
    expect(runs).toBe(3);
  });

  it('openStore takes a postgres:// (or postgresql://) URL for the PostgreSQL store', async () => {
    const url = await freshDatabaseUrl();
    for (const db of [url, url.replace(/^postgres:/, 'postgresql:')]) {
      const store = await openStore({ db, cluster: { poolSize: 2 } }, { states: STATES, log: () => {} });
      try {
        expect(store.engine).toBe('postgres');
        await store.ping();
        expect(await store.repos.accounts.list()).toEqual([]);
      } finally {
        await store.close();
      }
    }
  });

  it('ping throws once the store is closed; an unreachable URL fails to open', async () => {
    const store = await open();
    await store.close();
    await expect(store.ping()).rejects.toThrow();
    await expect(openPgStore('postgres://postgres@127.0.0.1:1/none', { states: STATES })).rejects.toThrow();
  });
});
