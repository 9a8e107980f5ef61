// Group commit on a real SQLite file: concurrent writes share a transaction, a failing write
// rolls back only itself, and nothing resolves before COMMIT.
import { Database } from 'bun:sqlite';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGroupCommitter, WriteAwaitedIoError, type GroupCommitter } from '../../src/store/group-commit';
import { openSqliteStore } from '../../src/store/store';
import { statesTagged } from '../../machines/judge';
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
    expect(small.stats()).toEqual({ batches: 4, writes: 35, gateWaits: 0, gateWaitMs: 0 });
    expect(committedIds()).toHaveLength(35);
  });

  it('a queue longer than a batch: the event loop turns between batches; writes commit in queue order, each answered only once committed', async () => {
    const n = 1200;
    const ids = Array.from({ length: n }, (_, i) => `q${String(i).padStart(4, '0')}`);
    const answered: string[] = [];
    let seenAtTurn = -1;
    const all = Promise.all(ids.map((id, i) => gc.write(() => (insertAccount(id), i)).then((v) => {
      // Every 100th: another connection already sees its row when it is answered.
      if (v % 100 === 0 && !committedIds().includes(id)) throw new Error(`${id} answered before its commit`);
      answered.push(id);
    })));
    // Queued after the committer's own immediate: runs once its first batch (512) is committed.
    setImmediate(() => (seenAtTurn = committedIds().length));
    await all;
    expect(seenAtTurn).toBe(512);
    expect(answered).toEqual(ids);
    const seq = (t.db.sqlite.query('SELECT id FROM accounts ORDER BY rowid').all() as Array<{ id: string }>).map((r) => r.id);
    expect(seq).toEqual(ids);
    expect(gc.stats()).toMatchObject({ batches: 3, writes: n });
  });

  it('a batch takes no more writes past its time budget: the rest go first in the queue, in order, after a turn of the event loop', async () => {
    // Each write runs 2 ms, the budget is 1 ms: every batch ends after its first write.
    const budgeted = createGroupCommitter(t.db.sqlite, 512, null, () => {}, null, null, (e) => e, 1);
    const busy = (ms: number) => {
      for (const end = performance.now() + ms; performance.now() < end; );
    };
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const ids = ['t1', 't2', 't3', 't4', 't5'];
    const out = await Promise.all(ids.map((id) => budgeted.write(() => (busy(2), insertAccount(id), id))));
    clearInterval(ticker);
    expect(out).toEqual(ids);
    expect(budgeted.stats()).toMatchObject({ batches: 5, writes: 5 });
    // The loop turned between batches (a timer ran), not only once they were all done.
    expect(turns).toBeGreaterThan(1);
    const seq = (t.db.sqlite.query('SELECT id FROM accounts ORDER BY rowid').all() as Array<{ id: string }>).map((r) => r.id);
    expect(seq).toEqual(ids);
  });

  it('paused between two batches (the checkpointer\'s hold), the rest waits for resume(); flush() commits it even while paused', async () => {
    const small = createGroupCommitter(t.db.sqlite, 2);
    const done: string[] = [];
    const w = (id: string) => small.write(() => insertAccount(id)).then(() => done.push(id));
    const first = Promise.all(['p1', 'p2', 'p3', 'p4', 'p5'].map(w));
    // The first batch commits in the committer's immediate; this one runs in the turn after it.
    await new Promise((r) => setImmediate(r));
    small.pause();
    await new Promise((r) => setTimeout(r, 20));
    expect(committedIds()).toEqual(['p1', 'p2']);
    small.resume();
    await first;
    expect(committedIds()).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    const second = Promise.all(['p6', 'p7', 'p8'].map(w));
    small.pause();
    await small.flush();
    await second;
    expect(done).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8']);
    small.resume();
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

  it('writes without a savepoint of their own commit as the others do, in one batch', async () => {
    const ids = ['n1', 'n2', 'n3'];
    const out = await Promise.all([gc.write(() => insertAccount('g1')), ...ids.map((id) => gc.write(() => (insertAccount(id), id), undefined, undefined, { savepoint: false }))]);
    expect(out.slice(1)).toEqual(ids);
    expect(committedIds()).toEqual(['g1', ...ids]);
    expect(gc.stats()).toMatchObject({ batches: 1, writes: 4 });
  });

  it('a write without a savepoint that fails rolls its whole batch back; only it fails: those that had succeeded before it run again, in order, first in the next batch', async () => {
    const boom = new Error('boom');
    const aborted: string[] = [];
    const runs: string[] = [];
    const settledAt: Array<{ id: string; committed: string[] }> = [];
    const w = (id: string, savepoint: boolean) =>
      gc
        .write(() => (runs.push(id), insertAccount(id), id), () => aborted.push(id), undefined, { savepoint })
        // What another connection sees when the write is answered: its own row, committed.
        .then((v) => (settledAt.push({ id, committed: committedIds() }), v));
    const settled = await Promise.allSettled([
      w('before1', true),
      w('before2', false),
      gc.write(() => {
        // After writes that succeeded: it may have failed on their rows, so it runs again too.
        runs.push('refused');
        throw new Error('refused on its own');
      }),
      gc.write(
        () => {
          runs.push('half');
          insertAccount('half'); // written: nothing may keep it
          throw boom;
        },
        () => aborted.push('half'),
        undefined,
        { savepoint: false },
      ),
      w('after1', true),
      w('after2', false),
    ]);
    expect(settled.map((x) => (x.status === 'fulfilled' ? x.value : String(x.reason)))).toEqual([
      'before1',
      'before2',
      'Error: refused on its own',
      'Error: boom',
      'after1',
      'after2',
    ]);
    expect((settled[3] as PromiseRejectedResult).reason).toBe(boom);
    // Only the writes that had succeeded are told to undo what they did in memory; they and the one
    // that failed after them run again, in their order, ahead of those not run yet; the one that
    // broke the batch runs once.
    expect(aborted).toEqual(['before1', 'before2']);
    expect(runs).toEqual(['before1', 'before2', 'refused', 'half', 'before1', 'before2', 'refused', 'after1', 'after2']);
    expect(committedIds()).toEqual(['after1', 'after2', 'before1', 'before2']);
    const seq = (t.db.sqlite.query('SELECT id FROM accounts ORDER BY rowid').all() as Array<{ id: string }>).map((r) => r.id);
    expect(seq).toEqual(['before1', 'before2', 'after1', 'after2']);
    // Each answered only once its row was committed (visible to another connection).
    for (const s of settledAt) expect(s.committed).toContain(s.id);
    expect(gc.stats()).toMatchObject({ batches: 1, writes: 5 });
  });

  it('a write that ends the transaction itself (as SQLite does on some errors) fails instead of letting the rest run outside any transaction; the one before it runs again', async () => {
    for (const savepoint of [true, false]) {
      const settled = await Promise.allSettled([
        gc.write(() => insertAccount(`x-${savepoint}`)),
        gc.write(
          () => {
            try {
              t.db.sqlite.exec('ROLLBACK');
            } catch {
              /* a write that swallows the error and goes on */
            }
            insertAccount(`autocommitted-${savepoint}`);
          },
          undefined,
          undefined,
          { savepoint },
        ),
        gc.write(() => insertAccount(`y-${savepoint}`)),
      ]);
      // The one that ended it fails; the one before it, whose row went with the transaction, runs again.
      expect(settled.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(committedIds()).toContain(`y-${savepoint}`);
      expect(committedIds()).toContain(`x-${savepoint}`);
    }
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
      gc.write(() => {
        throw new Error('own failure');
      }, () => aborted.push('failed-first')),
      gc.write(() => insertAccount('d1'), () => aborted.push('d1')),
      gc.write(() => void t.db.sqlite.query("INSERT INTO child VALUES ('x', 'no-such-account')").run(), () => aborted.push('child')),
      gc.write(() => {
        // Failed on rows that never committed, maybe: its own answer would name them.
        if (t.db.sqlite.query("SELECT 1 FROM accounts WHERE id = 'd1'").get()) throw new Error('d1 exists');
      }, () => aborted.push('failed-after')),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    // Failed on committed rows only: its own answer.
    expect(String((settled[0] as PromiseRejectedResult).reason)).toMatch(/own failure/);
    expect(String((settled[1] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    // Failed after a write that succeeded (on its row, here): the COMMIT's error, not "d1 exists".
    expect(String((settled[3] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
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

  it('async write functions that await only synchronous work share one batch, in order, each in its savepoint', async () => {
    const order: string[] = [];
    const settled = await Promise.allSettled([
      gc.write(async () => {
        await Promise.resolve(insertAccount('f1'));
        order.push('f1');
        return 1;
      }),
      gc.write(async () => {
        insertAccount('f2');
        await Promise.resolve();
        throw new Error('f2 fails after its insert');
      }),
      gc.write(async () => (order.push('f3'), insertAccount('f3'), 3)),
    ]);
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason)))).toEqual([1, 'Error: f2 fails after its insert', 3]);
    expect(order).toEqual(['f1', 'f3']);
    expect(committedIds()).toEqual(['f1', 'f3']);
    expect(gc.stats().batches).toBe(1);
  });

  it('a write function still waiting when the event loop turns (it awaited I/O) is rolled back and rejected; the batch commits the rest', async () => {
    const logged: string[] = [];
    const guarded = createGroupCommitter(t.db.sqlite, 512, null, (_level, msg) => logged.push(msg));
    const settled = await Promise.allSettled([
      guarded.write(() => insertAccount('g1')),
      guarded.write(async () => {
        insertAccount('g-slow');
        await new Promise((r) => setTimeout(r, 5));
        return 'too late';
      }),
      guarded.write(() => insertAccount('g2')),
    ]);
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toBeInstanceOf(WriteAwaitedIoError);
    expect(logged).toEqual(['write rolled back: it awaited I/O inside its transaction']);
    expect(committedIds()).toEqual(['g1', 'g2']);
    expect(guarded.busy()).toBe(false);
  });

  it('writeNow refuses to run while a batch is open', async () => {
    let inside: unknown = null;
    await gc.write(async () => {
      await Promise.resolve();
      try {
        gc.writeNow(() => insertAccount('h1'));
      } catch (e) {
        inside = e;
      }
    });
    expect(String(inside)).toMatch(/inside an open group-commit batch/);
    expect(committedIds()).toEqual([]);
  });
});

describe('Store.transact on SQLite', () => {
  it('the repositories handed to a write refuse to run once the write is over (a late continuation writes nothing)', async () => {
    const store = openSqliteStore(join(t.dir, 'store.db'), { states: { live: statesTagged('live'), watching: statesTagged('watching') }, log: () => {} });
    try {
      let late: Promise<unknown> | null = null;
      const p = store.transact(async (r) => {
        late = (async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          return r.accounts.create({ name: 'late' });
        })();
        await late;
      });
      await expect(p).rejects.toBeInstanceOf(WriteAwaitedIoError);
      await expect(late).rejects.toThrow(/accounts\.create: used after its write ended/);
      expect(store.repos.accounts.list()).toEqual([]);
      // The next write goes through as usual.
      const a = await store.transact(async (r) => r.accounts.create({ name: 'next' }));
      expect(store.repos.accounts.list().map((x) => x.id)).toEqual([a.id]);
    } finally {
      await store.close();
    }
  });

  it("nothing else runs on the connection inside an open batch: the store's repositories wait for it to end, the lease heartbeat refuses, the batch commits", async () => {
    const store = openSqliteStore(join(t.dir, 'store.db'), { states: { live: statesTagged('live'), watching: statesTagged('watching') }, log: () => {} });
    try {
      let claim: unknown = null;
      let named: unknown = null;
      const refused = await store.transact(async (r) => {
        const account = await r.accounts.create({ name: 'in batch' });
        const errors: string[] = [];
        // The store's own repositories (everything outside a write uses them) wait for the batch to end.
        claim = store.repos.dispatch.claim({ now: 1, leaseUntil: 2, limit: 1, perEndpoint: 1, inFlight: new Map(), deep: false });
        named = store.repos.accounts.create({ name: 'outside' });
        try {
          store.instanceLease.renew('inst_x', 1, 1000);
        } catch (e) {
          errors.push(String(e));
        }
        return { errors, account };
      });
      expect(refused.errors).toEqual([expect.stringMatching(/instance lease: a write batch is open/)]);
      expect(claim).toBeInstanceOf(Promise);
      expect(named).toBeInstanceOf(Promise);
      expect(await claim).toEqual([]);
      const outside = (await named) as { id: string };
      expect(store.repos.accounts.list().map((a) => a.id).sort()).toEqual([refused.account.id, outside.id].sort());
    } finally {
      await store.close();
    }
  });

  it("a write outside the batches while a batch waits for the write turn commits at the connection's own level (synchronous=FULL), not the batch's", async () => {
    const store = openSqliteStore(join(t.dir, 'store.db'), { states: { live: statesTagged('live'), watching: statesTagged('watching') }, log: () => {} });
    try {
      const level = () => (store.db.sqlite.query('PRAGMA synchronous').get() as { synchronous: number }).synchronous;
      // (A first batch: the committer's PRAGMA statements take effect from their second run on.)
      await store.transact(async (r) => r.accounts.create({ name: 'first' }));
      expect(level()).toBe(2);
      // The webhook dispatcher's thread holds the write turn (here: this thread takes it as that thread does).
      const gate = store.writeGate!;
      expect(gate.enter(0).taken).toBe(true);
      const batch = store.transact(async (r) => r.accounts.create({ name: 'batched' }));
      // The committer's batch starts in the immediate it asked for before this one, and waits for the turn.
      await new Promise((r) => setImmediate(r));
      expect(store.repos.accounts.list()).toHaveLength(1);
      // What a dashboard request handled now writes: its commit must be synced by itself.
      expect(level()).toBe(2);
      const direct = await store.repos.accounts.create({ name: 'direct' });
      gate.leave();
      const batched = await batch;
      expect(store.commitStats().gateWaits).toBe(1);
      expect(level()).toBe(2);
      expect(store.repos.accounts.list().map((a) => a.name).sort()).toEqual(['batched', 'direct', 'first']);
      expect(batched.name).toBe('batched');
      expect(direct.name).toBe('direct');
    } finally {
      await store.close();
    }
  });
});
