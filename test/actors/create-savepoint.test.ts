// A create without an idempotency key runs in the group committer's batch without a savepoint of
// its own (every check is done before its first INSERT; a savepoint made SQLite copy each page it
// touched): if one fails all the same, after its intent INSERT, its whole batch is rolled back,
// nothing of it is committed, and only it fails: its batch-mates run again in the next batch. A
// create with a key keeps its savepoint (a key stored meanwhile rolls back only that create). A real
// SQLite file with the real migrations; the failure is a real trigger's.
import { Database } from 'bun:sqlite';
import { describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/actors/runtime';
import type { SqliteStore } from '../../src/store/store';
import { storedIntent } from '../support/db';
import { storeFiles } from '../support/store-files';

const stores = storeFiles('create-savepoint');

function setup(): { store: SqliteStore; runtime: Runtime; seen: Array<unknown>; path: string; runs: () => number } {
  const path = stores.path();
  const store = stores.open(path);
  // Each run of a write function (one that rolled back with its batch runs again).
  let runs = 0;
  const seen: unknown[] = [];
  const runtime = createRuntime({
    transact: (fn, opts) => (seen.push(opts), store.transact((repos) => (runs++, fn(repos)), opts)),
    intents: { liveHeadsPage: (after, limit) => store.repos.intents.liveHeadsPage(after, limit), get: (id) => store.repos.intents.get(id) },
    onDeliveriesQueued: () => {},
  });
  stores.later(() => runtime.stop());
  return { store, runtime, seen, path, runs: () => runs };
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

  it('one that fails after its intent INSERT rolls back its batch: nothing of it is committed, only it fails, the others commit in order and answer after their commit', async () => {
    const { store, runtime, path, runs } = setup();
    // Its event is refused once its intent row is written (as a failing disk would refuse it).
    store.db.sqlite.exec(`CREATE TRIGGER refuse_event BEFORE INSERT ON events
      WHEN (SELECT reference FROM intents WHERE id = NEW.intent_id) = 'boom' BEGIN SELECT RAISE(ABORT, 'event refused'); END`);
    // Another connection sees only what is committed.
    const reader = new Database(path, { readonly: true });
    stores.later(() => reader.close());
    const committed = () => (reader.query('SELECT reference FROM intents ORDER BY seq').all() as Array<{ reference: string }>).map((r) => r.reference);
    const seenAtAnswer: Record<string, string[]> = {};
    const refs = ['before1', 'before2', 'boom', 'after'];
    const settled = await Promise.allSettled(
      refs.map((r) => runtime.create({ fields: fields(r), idempotency: null }).then((v) => ((seenAtAnswer[r] = committed()), v))),
    );
    expect(settled.map((x) => x.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((settled[2] as PromiseRejectedResult).reason)).toMatch(/event refused/);
    // The two before it ran twice (their first run rolled back with the batch), the others once.
    expect(runs()).toBe(6);
    // In the order they were asked for.
    expect(ids(store)).toEqual(['before1', 'before2', 'after']);
    for (const r of ['before1', 'before2', 'after']) expect(seenAtAnswer[r]).toContain(r);
    // Its event and delivery went with it: one event per committed create.
    expect(store.db.sqlite.query('SELECT count(*) AS n FROM events').get()).toEqual({ n: 3 });
    // Memory follows only what committed.
    expect(runtime.liveIntents()).toBe(3);
  });

  it('a write that failed on what an earlier batch-mate wrote is not answered from that rolled-back write: it runs again after it, and its answer names a committed state', async () => {
    const { store, runtime, path } = setup();
    store.db.sqlite.exec(`CREATE TRIGGER refuse_event BEFORE INSERT ON events
      WHEN (SELECT reference FROM intents WHERE id = NEW.intent_id) = 'boom' BEGIN SELECT RAISE(ABORT, 'event refused'); END`);
    const reader = new Database(path, { readonly: true });
    stores.later(() => reader.close());
    const stateOf = (id: string) => (reader.query('SELECT state FROM intents WHERE id = ?').get(id) as { state: string }).state;
    const { intent } = (await runtime.create({ fields: fields('paid-for'), idempotency: null })) as { intent: { id: string } };
    const cancel = () => runtime.write(async (tx) => (await tx.apply((await tx.get(intent.id))!, { type: 'CANCEL', at: tx.now }, 'throw'))!);
    // One batch: the first cancel succeeds; the second fails on the first's (uncommitted) row; then
    // a create without a savepoint breaks the batch, rolling the first cancel back.
    let seenAtRefusal: string | null = null;
    const settled = await Promise.allSettled([
      cancel(),
      cancel().catch((e: unknown) => {
        seenAtRefusal = stateOf(intent.id);
        throw e;
      }),
      runtime.create({ fields: fields('boom'), idempotency: null }),
    ]);
    expect(settled.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    const refusal = (settled[1] as PromiseRejectedResult).reason as { code: string; details: Record<string, unknown> };
    expect(refusal.code).toBe('intent.invalid_state');
    expect(refusal.details.current_state).toBe('cancelled');
    // When told "cancelled", another connection must see it cancelled (was: 'created', the cancel
    // it saw had been rolled back and not yet run again; had its re-run failed, never).
    expect(seenAtRefusal).toBe('cancelled');
    expect(stateOf(intent.id)).toBe('cancelled');
  });
});
