// A create without an idempotency key runs in the group committer's batch without a savepoint of
// its own (every check is done before its first INSERT; a savepoint made SQLite copy each page it
// touched): if one fails all the same, after its intent INSERT, its whole batch is rolled back and
// nothing of it is committed. A create with a key keeps its savepoint (a key stored meanwhile rolls
// back only that create). A real SQLite file with the real migrations.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/actors/runtime';
import { BatchRolledBackError } from '../../src/store/group-commit';
import { openSqliteStore, type SqliteStore } from '../../src/store/store';
import { storedIntent } from '../support/db';
import { STORE_STATES } from '../support/engines';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function setup(): { store: SqliteStore; runtime: Runtime; seen: Array<unknown> } {
  const dir = mkdtempSync(join(tmpdir(), 'payforge-create-savepoint-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const store = openSqliteStore(join(dir, 'payforge.db'), { states: STORE_STATES, log: () => {} });
  cleanup.push(() => store.close());
  const seen: unknown[] = [];
  const runtime = createRuntime({
    transact: (fn, opts) => (seen.push(opts), store.transact(fn, opts)),
    intents: { liveHeadsPage: (after, limit) => store.repos.intents.liveHeadsPage(after, limit), get: (id) => store.repos.intents.get(id) },
    onDeliveriesQueued: () => {},
  });
  cleanup.push(() => runtime.stop());
  return { store, runtime, seen };
}

const fields = (reference: string | null) => (now: number) => {
  const { state: _s, snapshot: _n, machineVersion: _m, ...f } = storedIntent({ reference, createdAt: now, updatedAt: now, expiresAt: now + 600_000 });
  return f;
};
const ids = (s: SqliteStore) => (s.db.sqlite.query('SELECT reference FROM intents ORDER BY seq').all() as Array<{ reference: string }>).map((r) => r.reference);

describe('a create and its savepoint', () => {
  it('without a key: no savepoint; with one: its own', async () => {
    const { runtime, seen } = setup();
    await runtime.create({ fields: fields('a'), idempotency: null });
    await runtime.create({
      fields: fields('b'),
      idempotency: { accountId: 'acct_x', mode: 'test', key: 'k1', ttlSeconds: 60, response: () => ({ requestHash: 'h', responseStatus: 201, responseBody: '{}' }) },
    });
    expect(seen).toEqual([{ savepoint: false }, undefined]);
  });

  it('one that fails after its intent INSERT rolls back its batch: nothing of it is committed, the others before it fail, those after it commit', async () => {
    const { store, runtime } = setup();
    // Its event is refused once its intent row is written (as a failing disk would refuse it).
    store.db.sqlite.exec(`CREATE TRIGGER refuse_event BEFORE INSERT ON events
      WHEN (SELECT reference FROM intents WHERE id = NEW.intent_id) = 'boom' BEGIN SELECT RAISE(ABORT, 'event refused'); END`);
    const settled = await Promise.allSettled(['before', 'boom', 'after'].map((r) => runtime.create({ fields: fields(r), idempotency: null })));
    expect(settled.map((x) => x.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((settled[0] as PromiseRejectedResult).reason).toBeInstanceOf(BatchRolledBackError);
    expect(String((settled[1] as PromiseRejectedResult).reason)).toMatch(/event refused/);
    expect(ids(store)).toEqual(['after']);
    // Its event and delivery went with it: the only event is the committed create's.
    expect(store.db.sqlite.query('SELECT count(*) AS n FROM events').get()).toEqual({ n: 1 });
    // Memory follows only what committed.
    expect(runtime.liveIntents()).toBe(1);
  });
});
