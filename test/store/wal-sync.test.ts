// The fsync off the event loop: a group-committed batch commits without a sync and settles only
// after the WAL's fdatasync (on another thread) returns; checkpoints run on a worker thread and
// still let the WAL start over. Real SQLite files, the real fdatasync; the sync is only held
// back (never replaced) to look at the state in between.
import { Database } from 'bun:sqlite';
import { statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from '../../src/store/checkpointer';
import { createGroupCommitter } from '../../src/store/group-commit';
import { REFUSED_RETRY_AFTER_SECONDS } from '../../src/store/disk-refusal';
import { openDb } from '../../src/store/db';
import { createWalSync, type WalSync } from '../../src/store/wal-sync';
import { tempDb, type TempDb } from '../support/db';

let t: TempDb;
let reader: Database;
const insertAccount = (id: string) =>
  t.db.sqlite.query("INSERT INTO accounts (id, name, plan, created_at) VALUES (?, 'n', 'free', 1)").run(id);
const committedIds = () => (reader.query('SELECT id FROM accounts ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id);

/** The real WAL sync, started only when the test releases it. */
function heldSync(real: WalSync) {
  const held: Array<() => void> = [];
  let calls = 0;
  let fail: Error | null = null;
  const sync: WalSync = {
    sync: () => {
      calls++;
      return new Promise<void>((resolve, reject) => held.push(() => (fail ? reject(fail) : real.sync().then(resolve, reject))));
    },
    close: () => real.close(),
  };
  return {
    sync,
    calls: () => calls,
    releaseOne: () => held.shift()?.(),
    failNext: (e: Error) => (fail = e),
  };
}

const settledYet = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  // Let the batch run (setImmediate) and any settled promise callbacks run.
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  return done;
};

beforeEach(() => {
  t = tempDb();
  reader = new Database(t.path, { readonly: true });
});
afterEach(() => {
  reader.close();
  t.dispose();
});

describe('group commit with the WAL synced off the event loop', () => {
  it('a batch is committed (visible) but its writes settle only after the WAL sync returns', async () => {
    const h = heldSync(createWalSync(t.path));
    const gc = createGroupCommitter(t.db.sqlite, 512, h.sync);
    const p = gc.write(() => (insertAccount('a1'), 'ok'));
    expect(await settledYet(p)).toBe(false);
    expect(committedIds()).toEqual(['a1']);
    expect(h.calls()).toBe(1);
    const gate = gc.durable();
    expect(gate).not.toBeNull();
    h.releaseOne();
    expect(await p).toBe('ok');
    await gate;
    expect(gc.durable()).toBeNull();
    // The connection's own level is back to FULL for every other write.
    expect((t.db.sqlite.query('PRAGMA synchronous').get() as { synchronous: number }).synchronous).toBe(2);
  });

  it('batches committed while a sync runs share the next one, in order', async () => {
    const h = heldSync(createWalSync(t.path));
    const gc = createGroupCommitter(t.db.sqlite, 512, h.sync);
    const first = gc.write(() => insertAccount('b1'));
    expect(await settledYet(first)).toBe(false);
    const second = gc.write(() => insertAccount('b2'));
    expect(await settledYet(second)).toBe(false);
    const third = gc.write(() => insertAccount('b3'));
    expect(await settledYet(third)).toBe(false);
    expect(h.calls()).toBe(1); // one sync under way; b2 and b3 wait for the next
    h.releaseOne();
    await first;
    expect(await settledYet(second)).toBe(false);
    expect(h.calls()).toBe(2);
    h.releaseOne();
    await Promise.all([second, third]);
    expect(gc.stats()).toEqual({ batches: 3, writes: 3, gateWaits: 0, gateWaitMs: 0 });
    expect(gc.syncs()).toBe(2);
  });

  it('a write that fails on its own still answers only after the sync (its 409 may rest on what the batch read)', async () => {
    const h = heldSync(createWalSync(t.path));
    const gc = createGroupCommitter(t.db.sqlite, 512, h.sync);
    const bad = gc.write(() => {
      throw new Error('own failure');
    });
    const good = gc.write(() => insertAccount('c1'));
    expect(await settledYet(bad)).toBe(false);
    h.releaseOne();
    await expect(bad).rejects.toThrow('own failure');
    await good;
  });

  it('a failed sync rejects its writes, the gate and every later write', async () => {
    const h = heldSync(createWalSync(t.path));
    const gc = createGroupCommitter(t.db.sqlite, 512, h.sync);
    const p = gc.write(() => insertAccount('d1'));
    expect(await settledYet(p)).toBe(false);
    const gate = gc.durable()!;
    h.failNext(new Error('EIO'));
    h.releaseOne();
    // 503 store.unavailable (src/store/disk-refusal.ts), the sync's error its cause.
    const refused = { code: 'store.unavailable', details: { retry_after: REFUSED_RETRY_AFTER_SECONDS }, cause: { message: 'EIO' } };
    await expect(p).rejects.toMatchObject(refused);
    await expect(gate).rejects.toMatchObject(refused);
    await expect(gc.write(() => insertAccount('d2'))).rejects.toMatchObject(refused);
    expect(committedIds()).toEqual(['d1']);
  });

  it("refused (the checkpointer's database sync failed) while a WAL sync runs: that sync's writes, the gate and every later write fail", async () => {
    const h = heldSync(createWalSync(t.path));
    const gc = createGroupCommitter(t.db.sqlite, 512, h.sync);
    const p = gc.write(() => insertAccount('e1'));
    expect(await settledYet(p)).toBe(false);
    const gate = gc.durable()!;
    const queued = gc.write(() => insertAccount('e2'));
    gc.refuse(new Error('database file sync failed'));
    // The WAL sync under way succeeds: what it covers stays refused all the same.
    h.releaseOne();
    const refused = { code: 'store.unavailable', cause: { message: 'database file sync failed' } };
    await expect(p).rejects.toMatchObject(refused);
    await expect(gate).rejects.toMatchObject(refused);
    await expect(queued).rejects.toMatchObject(refused);
    await expect(gc.write(() => insertAccount('e3'))).rejects.toMatchObject(refused);
    await expect(gc.durable()).rejects.toMatchObject(refused);
    expect(committedIds()).toEqual(['e1']);
  });
});

describe('a database reached through a symlink', () => {
  it('syncs the WAL SQLite actually writes (next to the real file), so writes settle', async () => {
    const link = join(t.dir, 'link.db');
    symlinkSync(t.path, link);
    const viaLink = openDb(link);
    try {
      const gc = createGroupCommitter(viaLink.sqlite, 512, createWalSync(link));
      await gc.write(() => viaLink.sqlite.query("INSERT INTO accounts (id, name, plan, created_at) VALUES ('s1', 'n', 'free', 1)").run());
      expect(gc.syncs()).toBe(1);
      expect(committedIds()).toEqual(['s1']);
    } finally {
      viaLink.close();
    }
  });
});

describe('checkpoints on a worker thread', () => {
  it('keep the WAL bounded under steady writes, and every row survives a reopen', { timeout: 240_000 }, async () => {
    const walSync = createWalSync(t.path);
    const gc = createGroupCommitter(t.db.sqlite, 512, walSync);
    const logs: string[] = [];
    const cp = startCheckpointer({ dbPath: t.path, sqlite: t.db.sqlite, committer: gc, log: (_l, m) => logs.push(m), intervalMs: 5, maxFrames: 50 });
    await cp.ready();
    const big = 'x'.repeat(3000);
    let n = 0;
    // Keep writing (one row of ~3 KB a batch) until the worker has held writes and let the WAL restart.
    const writeOne = () => gc.write(() => t.db.sqlite.query("INSERT INTO accounts (id, name, plan, created_at) VALUES (?, ?, 'free', 1)").run(`e${n++}`, big));
    const deadline = Date.now() + 60_000;
    while (cp.stats().completed < 2) {
      if (Date.now() > deadline) throw new Error(`no completing checkpoint: ${JSON.stringify(cp.stats())}`);
      await writeOne();
    }
    // Each commit appends at least one frame, so a WAL that never starts over grows by at least
    // as many frames as commits were made. Kept bounded, it stops growing while commits go on:
    // write until the checkpointer has completed two more held passes AND the WAL has grown by
    // less than half the commits since `before` (at least 400). How fast the worker and fsyncs
    // are only changes how long that takes; an unbounded WAL never gets there and hits the deadline.
    const frames = () => (statSync(`${t.path}-wal`).size - 32) / (4096 + 24);
    const before = frames();
    const completedBefore = cp.stats().completed;
    let commits = 0;
    const bounded = () => commits >= 400 && cp.stats().completed >= completedBefore + 2 && frames() - before < commits / 2;
    const boundedBy = Date.now() + 120_000;
    while (!bounded()) {
      if (Date.now() > boundedBy) throw new Error(`WAL not kept bounded: ${JSON.stringify({ commits, before, now: frames(), ...cp.stats() })}`);
      await writeOne();
      commits++;
    }
    expect(frames() - before).toBeLessThan(commits / 2);
    expect(logs).toEqual([]);
    await gc.drain();
    await cp.stop();
    walSync.close();
    reader.close();
    t.db.close();
    const again = new Database(t.path, { readonly: true });
    expect((again.query('SELECT count(*) AS c FROM accounts').get() as { c: number }).c).toBe(n);
    again.close();
    reader = new Database(':memory:');
  });
});
