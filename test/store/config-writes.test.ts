// The count of key, account and endpoint writes (migration 0018, src/store/config-writes.ts) and
// what is remembered by it: the API key look-up's answers (per event-loop turn) and the outbox's
// endpoint URLs (per group-commit batch). A real SQLite file with the real migrations, a second
// connection standing for the CLI or another process.
import { Database } from 'bun:sqlite';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { statesTagged } from '../../machines/judge';
import { newId } from '../../src/domain/ids';
import { toWire } from '../../src/domain/intent';
import { createAccount, setAccountPlan } from '../../src/store/accounts';
import { createApiKey, findActiveKeyByHash, hashApiKey, revokeApiKey, touchApiKeys } from '../../src/store/api-keys';
import { configWrites } from '../../src/store/config-writes';
import { openDb, type Db } from '../../src/store/db';
import { createIntentRepo } from '../../src/store/intents';
import { createOutbox } from '../../src/store/outbox';
import { openSqliteStore, type SqliteStore } from '../../src/store/store';
import { restoreEndpoint, saveEndpointUrl } from '../../src/store/webhook-endpoints';
import { storedIntent, tempDb, type TempDb } from '../support/db';
import { STORE_STATES } from '../support/engines';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const count = (s: Database) => s.query<{ n: number }, []>('SELECT n FROM config_writes WHERE k = 0').get()!.n;
/** A write the triggers do not see (as if it had none): the only way to tell a remembered answer from a fresh read. */
function unseen(s: Database, sql: string): void {
  const triggers = s.query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'config_writes_%'").all();
  s.transaction(() => {
    for (const t of triggers) s.exec(`DROP TRIGGER ${t.name}`);
    s.exec(sql);
    for (const t of triggers) s.exec(t.sql);
  })();
}

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
function temp(): TempDb {
  const t = tempDb();
  cleanup.push(() => t.dispose());
  return t;
}
function second(path: string): Db {
  const other = openDb(path);
  cleanup.push(() => other.close());
  return other;
}

describe('migration 0018: the count of key, account and endpoint writes', () => {
  it('moves on every write to api_keys, accounts and webhook_endpoints, and on nothing else', () => {
    const { db } = temp();
    const s = db.sqlite;
    let last = count(s);
    const moved = () => {
      const n = count(s);
      const m = n > last;
      last = n;
      return m;
    };
    const acct = createAccount(db, { name: 'a', plan: 'free' });
    expect(moved()).toBe(true);
    setAccountPlan(db, acct.id, 'pro');
    expect(moved()).toBe(true);
    const key = createApiKey(db, { accountId: acct.id, mode: 'test' });
    expect(moved()).toBe(true);
    // The ~30 s last-used touch changes no answer: not counted.
    touchApiKeys(db, new Map([[key.id, Date.now()]]));
    expect(moved()).toBe(false);
    revokeApiKey(db, key.id);
    expect(moved()).toBe(true);
    s.query('DELETE FROM api_keys WHERE id = ?').run(key.id);
    expect(moved()).toBe(true);
    saveEndpointUrl(db, { accountId: acct.id, mode: 'test', url: 'http://a.example/x', now: 1, newSecret: () => 's' });
    expect(moved()).toBe(true);
    saveEndpointUrl(db, { accountId: acct.id, mode: 'test', url: 'http://a.example/y', now: 2, newSecret: () => 's' });
    expect(moved()).toBe(true);
    restoreEndpoint(db, acct.id, 'test', null, 3);
    expect(moved()).toBe(true);
    // Intents, events and deliveries (every create, the dispatcher's records) leave it alone.
    const outbox = createOutbox(s);
    const i = storedIntent({ accountId: acct.id });
    const intents = createIntentRepo(s, { live: statesTagged('live') });
    intents.insert(i);
    intents.update({ ...i, reference: 'moved' });
    outbox.append({ envelope: { eventId: newId('evt'), type: 'intent.created', createdAt: new Date(0).toISOString(), livemode: false, data: { intent: toWire(i) } }, accountId: acct.id, mode: 'test', intentId: i.id, createdAt: 0 });
    expect(moved()).toBe(false);
    s.query('DELETE FROM intents').run();
    s.query('DELETE FROM webhook_deliveries').run();
    s.query('DELETE FROM events').run();
    s.query('DELETE FROM accounts WHERE id = ?').run(acct.id);
    expect(moved()).toBe(true);
  });
});

describe('the API key look-up, by the count', () => {
  it('another connection commits something else: the next turn still answers from memory (no re-read)', async () => {
    const t = temp();
    const other = second(t.path);
    const acct = createAccount(t.db, { name: 'a', plan: 'pro' });
    const k = createApiKey(t.db, { accountId: acct.id, mode: 'test' });
    const h = hashApiKey(k.key);
    expect(findActiveKeyByHash(t.db, h)?.keyId).toBe(k.id);
    await nextTurn();
    // (PRAGMA data_version, read before, moved on this commit and the key was read again.)
    unseen(other.sqlite, `UPDATE api_keys SET revoked_at = 1 WHERE id = '${k.id}'`);
    expect(findActiveKeyByHash(t.db, h)?.keyId).toBe(k.id);
    // A counted write by anyone: forgotten at the next turn, the row read again.
    await nextTurn();
    other.sqlite.query('UPDATE accounts SET plan = ? WHERE id = ?').run('free', acct.id);
    expect(findActiveKeyByHash(t.db, h)).toBeNull();
  });

  it('a revoke from another connection counts from the next turn on; through this one, at once', async () => {
    const t = temp();
    const other = second(t.path);
    const acct = createAccount(t.db, { name: 'a', plan: 'pro' });
    const one = createApiKey(t.db, { accountId: acct.id, mode: 'test' });
    const two = createApiKey(t.db, { accountId: acct.id, mode: 'live' });
    const [h1, h2] = [hashApiKey(one.key), hashApiKey(two.key)];
    expect(findActiveKeyByHash(t.db, h1)?.keyId).toBe(one.id);
    expect(findActiveKeyByHash(t.db, h2)?.keyId).toBe(two.id);
    await nextTurn();
    revokeApiKey(other, one.id);
    expect(findActiveKeyByHash(t.db, h1)).toBeNull();
    expect(findActiveKeyByHash(t.db, h2)?.keyId).toBe(two.id);
    revokeApiKey(t.db, two.id);
    expect(findActiveKeyByHash(t.db, h2)).toBeNull();
  });
});

describe('the outbox endpoint URL, by the count', () => {
  function store(path: string): SqliteStore {
    const s = openSqliteStore(path, { states: STORE_STATES, log: () => {} });
    cleanup.push(() => s.close());
    return s;
  }
  const appendIn = (s: SqliteStore, accountId: string, mode: 'test' | 'live' = 'test') =>
    s.transact((tx) => {
      const i = storedIntent({ accountId });
      return tx.outbox.append({
        envelope: { eventId: newId('evt'), type: 'intent.created', createdAt: new Date(0).toISOString(), livemode: mode === 'live', data: { intent: toWire(i) } },
        accountId,
        mode,
        intentId: i.id,
        createdAt: 0,
      });
    });
  const lastUrl = (s: SqliteStore) => s.db.sqlite.query<{ url: string }, []>('SELECT url FROM webhook_deliveries ORDER BY seq DESC LIMIT 1').get()?.url ?? null;
  const deliveries = (s: SqliteStore) => s.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM webhook_deliveries').get()!.n;

  it('is read once per batch: another connection change counts from the next batch on, whatever it is', async () => {
    const dir = temp();
    const s = store(join(dir.dir, 'store.db'));
    const other = second(join(dir.dir, 'store.db'));
    const acct = createAccount(s.db, { name: 'a', plan: 'pro' });
    // No endpoint: no delivery; one set elsewhere: the next batch queues one.
    expect(await appendIn(s, acct.id)).toBe(false);
    saveEndpointUrl(other, { accountId: acct.id, mode: 'test', url: 'http://a.example/1', now: 1, newSecret: () => 's' });
    expect(await appendIn(s, acct.id)).toBe(true);
    expect(lastUrl(s)).toBe('http://a.example/1');
    // Remembered: a change the count does not see is not read (the proof that nothing is read per append)...
    unseen(other.sqlite, "UPDATE webhook_endpoints SET url = 'http://a.example/unseen'");
    expect(await appendIn(s, acct.id)).toBe(true);
    expect(lastUrl(s)).toBe('http://a.example/1');
    // ...one it sees is read by the next batch: a new URL, a removed endpoint.
    saveEndpointUrl(other, { accountId: acct.id, mode: 'test', url: 'http://a.example/2', now: 2, newSecret: () => 's' });
    expect(await appendIn(s, acct.id)).toBe(true);
    expect(lastUrl(s)).toBe('http://a.example/2');
    restoreEndpoint(other, acct.id, 'test', null, 3);
    const before = deliveries(s);
    expect(await appendIn(s, acct.id)).toBe(false);
    expect(deliveries(s)).toBe(before);
    // Each mode its own endpoint.
    saveEndpointUrl(other, { accountId: acct.id, mode: 'live', url: 'http://a.example/live', now: 4, newSecret: () => 's' });
    expect(await appendIn(s, acct.id, 'live')).toBe(true);
    expect(lastUrl(s)).toBe('http://a.example/live');
    expect(await appendIn(s, acct.id, 'test')).toBe(false);
  });

  it('an endpoint set through the same connection counts at once (between batches, no batch read needed)', async () => {
    const dir = temp();
    const s = store(join(dir.dir, 'store.db'));
    const acct = createAccount(s.db, { name: 'a', plan: 'pro' });
    saveEndpointUrl(s.db, { accountId: acct.id, mode: 'test', url: 'http://a.example/1', now: 1, newSecret: () => 's' });
    expect(await appendIn(s, acct.id)).toBe(true);
    expect(lastUrl(s)).toBe('http://a.example/1');
    saveEndpointUrl(s.db, { accountId: acct.id, mode: 'test', url: 'http://a.example/2', now: 2, newSecret: () => 's' });
    expect(await appendIn(s, acct.id)).toBe(true);
    expect(lastUrl(s)).toBe('http://a.example/2');
    restoreEndpoint(s.db, acct.id, 'test', null, 3);
    expect(await appendIn(s, acct.id)).toBe(false);
  });

  it('an endpoint set inside a batch (after the batch read the count) counts for the rest of that batch', async () => {
    const dir = temp();
    const s = store(join(dir.dir, 'store.db'));
    const acct = createAccount(s.db, { name: 'a', plan: 'pro' });
    saveEndpointUrl(s.db, { accountId: acct.id, mode: 'test', url: 'http://a.example/1', now: 1, newSecret: () => 's' });
    const urls = await s.transact(async (tx) => {
      const append = () => {
        const i = storedIntent({ accountId: acct.id });
        const e = { eventId: newId('evt'), type: 'intent.created' as const, createdAt: new Date(0).toISOString(), livemode: false, data: { intent: toWire(i) } };
        return tx.outbox.append({ envelope: e, accountId: acct.id, mode: 'test', intentId: i.id, createdAt: 0 });
      };
      await append();
      await tx.endpoints.saveUrl({ accountId: acct.id, mode: 'test', url: 'http://a.example/2', now: 2, newSecret: () => 's' });
      await append();
      return s.db.sqlite.query<{ url: string }, []>('SELECT url FROM webhook_deliveries ORDER BY seq').all().map((r) => r.url);
    });
    expect(urls).toEqual(['http://a.example/1', 'http://a.example/2']);
  });

  it('outside a batch every append reads the count (a change elsewhere counts at once)', () => {
    const t = temp();
    const other = second(t.path);
    const acct = createAccount(t.db, { name: 'a', plan: 'pro' });
    const outbox = createOutbox(t.db.sqlite);
    const i = storedIntent({ accountId: acct.id });
    const append = () =>
      outbox.append({ envelope: { eventId: newId('evt'), type: 'intent.created', createdAt: new Date(0).toISOString(), livemode: false, data: { intent: toWire(i) } }, accountId: acct.id, mode: 'test', intentId: i.id, createdAt: 0 });
    expect(append()).toBe(false);
    const n = configWrites(t.db.sqlite);
    saveEndpointUrl(other, { accountId: acct.id, mode: 'test', url: 'http://a.example/1', now: 1, newSecret: () => 's' });
    expect(configWrites(t.db.sqlite)).toBeGreaterThan(n);
    expect(append()).toBe(true);
  });
});
