// Group commit on a real SQLite file: concurrent writes share a transaction, a failing write
// rolls back only itself, and nothing resolves before COMMIT.
import { Database } from 'bun:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGroupCommitter, type GroupCommitter } from '../../src/store/group-commit';
import { tempDb, type TempDb } from '../support/db';

let t: TempDb;
let gc: GroupCommitter;
let reader: Database;

const insertAccount = (id: string) =>
  t.db.sqlite.query("INSERT INTO accounts (id, name, plan, created_at) VALUES (?, 'n', 'free', 1)").run(id);
const committedIds = () => (reader.query('SELECT id FROM accounts ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id);

beforeEach(() => {
  t = tempDb();
  gc = createGroupCommitter(t.db.sqlite);
  // A second connection sees only what is committed.
  reader = new Database(t.path, { readonly: true });
});
afterEach(() => {
  reader.close();
  t.dispose();
});

describe('group commit', () => {
  it('many concurrent writes land in few batches, each resolving with its own value', async () => {
    const n = 200;
    const results = await Promise.all(Array.from({ length: n }, (_, i) => gc.write(() => (insertAccount(`a${String(i).padStart(3, '0')}`), i * 2))));
    expect(results).toEqual(Array.from({ length: n }, (_, i) => i * 2));
    expect(gc.stats().writes).toBe(n);
    expect(gc.stats().batches).toBeLessThanOrEqual(2);
    expect(committedIds()).toHaveLength(n);
  });

  it('splits a queue larger than maxBatch into several transactions', async () => {
    const small = createGroupCommitter(t.db.sqlite, 10);
    await Promise.all(Array.from({ length: 35 }, (_, i) => small.write(() => insertAccount(`b${i}`))));
    expect(small.stats()).toEqual({ batches: 4, writes: 35 });
    expect(committedIds()).toHaveLength(35);
  });

  it('a failing write rolls back only itself', async () => {
    const boom = new Error('boom');
    const settled = await Promise.allSettled([
      gc.write(() => insertAccount('ok1')),
      gc.write(() => {
        insertAccount('bad'); // written, then rolled back to the savepoint
        throw boom;
      }),
      gc.write(() => insertAccount('ok1')), // duplicate key: fails inside SQLite
      gc.write(() => insertAccount('ok2')),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toBe(boom);
    expect(String((settled[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(committedIds()).toEqual(['ok1', 'ok2']);
    expect(gc.stats().batches).toBe(1);
  });

  it('resolves only after COMMIT: the write is invisible to another connection until then', async () => {
    let seenInside: string[] | null = null;
    let resolvedEarly = false;
    const p = gc.write(() => {
      insertAccount('c1');
      seenInside = committedIds();
      return 'done';
    });
    void p.then(() => (resolvedEarly = true));
    // Nothing runs synchronously: the batch starts on setImmediate.
    expect(seenInside).toBeNull();
    expect(resolvedEarly).toBe(false);
    expect(await p).toBe('done');
    expect(seenInside).toEqual([]);
    expect(committedIds()).toEqual(['c1']);
  });

  it('a failed COMMIT rejects every write of the batch and calls onAbort for the ones that had succeeded', async () => {
    // A deferred foreign key is checked at COMMIT, so the whole batch fails there.
    t.db.sqlite.exec('CREATE TABLE child (id TEXT, parent TEXT REFERENCES accounts(id) DEFERRABLE INITIALLY DEFERRED)');
    const aborted: string[] = [];
    const settled = await Promise.allSettled([
      gc.write(() => insertAccount('d1'), () => aborted.push('d1')),
      gc.write(() => void t.db.sqlite.query("INSERT INTO child VALUES ('x', 'no-such-account')").run(), () => aborted.push('child')),
      gc.write(() => {
        throw new Error('own failure');
      }, () => aborted.push('failed-one')),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((settled[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(String((settled[2] as PromiseRejectedResult).reason)).toMatch(/own failure/);
    expect(aborted.sort()).toEqual(['child', 'd1']);
    expect(committedIds()).toEqual([]);
    // The connection is usable again: the next batch commits.
    await gc.write(() => insertAccount('d2'));
    expect(committedIds()).toEqual(['d2']);
  });

  it('writeNow runs its own immediate transaction', () => {
    expect(gc.writeNow(() => (insertAccount('e1'), 7))).toBe(7);
    expect(committedIds()).toEqual(['e1']);
    expect(() => gc.writeNow(() => {
      insertAccount('e2');
      throw new Error('no');
    })).toThrow('no');
    expect(committedIds()).toEqual(['e1']);
  });
});
