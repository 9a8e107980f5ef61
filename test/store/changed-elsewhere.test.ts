// Migration 0017: an intent INSERT no longer bumps intent_writes (0011's INSERT trigger is gone);
// the watch reads the highest intent seq beside the count, so an insert by any other connection is
// still seen, and the create's INSERT runs with no trigger program (no UPDATE, no statement journal).
import { Database } from 'bun:sqlite';
import { describe, expect, it } from 'vitest';
import { INTENT_COLUMNS } from '../../src/store/intent-row';
import type { SqliteStore } from '../../src/store/store';
import { storedIntent } from '../support/db';
import { storeFiles } from '../support/store-files';

const stores = storeFiles('changed-elsewhere');
const files = stores.path;
const open = (path: string, oneShot = false): SqliteStore => stores.open(path, { oneShot });

const count = (s: SqliteStore) => (s.db.sqlite.query('SELECT n FROM intent_writes WHERE k = 0').get() as { n: number }).n;

describe('intent writes seen from elsewhere without an INSERT trigger (0017)', () => {
  it('the intent INSERT runs no trigger; UPDATE and DELETE keep theirs', () => {
    const store = open(files(), true);
    const triggers = (store.db.sqlite.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'intents' ORDER BY name").all() as Array<{ name: string }>).map((t) => t.name);
    expect(triggers).toEqual(['intent_writes_delete', 'intent_writes_update']);
    const ops = (store.db.sqlite.query(`EXPLAIN INSERT INTO intents (${INTENT_COLUMNS.join(', ')}) VALUES (${INTENT_COLUMNS.map(() => '?').join(', ')})`).all() as Array<{ opcode: string }>).map((r) => r.opcode);
    expect(ops).toContain('Insert');
    expect(ops).not.toContain('Program');
  });

  it("another connection's insert leaves the count alone and is seen all the same (the highest seq moved)", async () => {
    const path = files();
    const store = open(path);
    expect(store.changedElsewhere()).toBe(true);
    await store.transact(async (tx) => tx.intents.insert(storedIntent()));
    expect(store.changedElsewhere()).toBe(false);
    const cli = open(path, true);
    const before = count(store);
    await cli.transact(async (tx) => tx.intents.insert(storedIntent()));
    expect(count(store)).toBe(before);
    expect(store.changedElsewhere()).toBe(true);
    expect(store.changedElsewhere()).toBe(false);
  });

  it('an insert elsewhere that takes the seq of a deleted row is seen (the delete counts)', async () => {
    const path = files();
    const store = open(path);
    const a = storedIntent();
    await store.transact(async (tx) => tx.intents.insert(a));
    expect(store.changedElsewhere()).toBe(true);
    expect(store.changedElsewhere()).toBe(false);
    const top = () => (store.db.sqlite.query('SELECT max(seq) AS s FROM intents').get() as { s: number }).s;
    const seq = top();
    // Another process removes the newest intent and writes one: the same highest seq again.
    const other = new Database(path, { strict: true });
    stores.later(() => other.close());
    other.exec('PRAGMA busy_timeout = 5000');
    other.query('DELETE FROM intents WHERE id = ?').run(a.id);
    await open(path, true).transact(async (tx) => tx.intents.insert(storedIntent()));
    expect(top()).toBe(seq);
    expect(store.changedElsewhere()).toBe(true);
  });

  it("this connection's own batches, inserts and updates, are not counted as elsewhere", async () => {
    const store = open(files());
    expect(store.changedElsewhere()).toBe(true);
    const a = storedIntent();
    await store.transact(async (tx) => tx.intents.insert(a));
    await store.transact(async (tx) => tx.intents.update({ ...a, reference: 'mine' }));
    await Promise.all([0, 1, 2].map(() => store.transact(async (tx) => tx.intents.insert(storedIntent()))));
    expect(store.changedElsewhere()).toBe(false);
  });
});

describe('migration 0017', () => {
  it('drops only the INSERT trigger of 0011', async () => {
    const { MIGRATIONS } = await import('../../src/store/migrations.generated');
    const path = files();
    const s = new Database(path, { create: true, strict: true });
    for (const m of MIGRATIONS.filter((x) => x.tag < '0017')) for (const q of m.sql.split('--> statement-breakpoint')) if (q.trim()) s.exec(q);
    const names = () => (s.query("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all() as Array<{ name: string }>).map((t) => t.name);
    expect(names()).toEqual(['intent_writes_delete', 'intent_writes_insert', 'intent_writes_update']);
    const m17 = MIGRATIONS.find((x) => x.tag.startsWith('0017'))!;
    for (const q of m17.sql.split('--> statement-breakpoint')) if (q.trim()) s.exec(q);
    expect(names()).toEqual(['intent_writes_delete', 'intent_writes_update']);
    s.close();
  });
});
