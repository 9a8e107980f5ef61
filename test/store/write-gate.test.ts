// The write gate between the server's group committer and the webhook dispatcher's own
// connection (src/store/write-gate.ts, dispatch-connection.ts): rows the dispatcher's connection
// claims are let through only once the WAL sync of the batch that wrote them has returned, exactly
// (never on the strength of an earlier sync), and never once a sync failed. Real SQLite file, the
// real fdatasync held back to look at the state in between.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDispatchConnection, type DispatchConnection } from '../../src/store/dispatch-connection';
import { createGroupCommitter, type GroupCommitter } from '../../src/store/group-commit';
import { createWalSync, type WalSync } from '../../src/store/wal-sync';
import { createWriteGate, inTurn, type WriteGate } from '../../src/store/write-gate';
import type { ClaimArgs } from '../../src/store/webhook-dispatch';
import { tempDb, type TempDb } from '../support/db';
import { createAccount, insertDelivery, insertEvent, putEndpoint } from '../webhooks/factory';

let t: TempDb;
let gate: WriteGate;
let conn: DispatchConnection;
let account: string;
const URL = 'https://hooks.example.com/x';

/** The real WAL sync, started only when the test releases it. */
function heldSync(real: WalSync) {
  const held: Array<() => void> = [];
  let fail: Error | null = null;
  const sync: WalSync = {
    sync: () => new Promise<void>((resolve, reject) => held.push(() => (fail ? reject(fail) : real.sync().then(resolve, reject)))),
    close: () => real.close(),
  };
  return { sync, releaseOne: () => held.shift()?.(), failNext: (e: Error) => (fail = e) };
}

const settledYet = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  return done;
};

const claimAll = (): ClaimArgs => ({ now: Date.now() + 1000, leaseUntil: Date.now() + 60_000, limit: 100, perEndpoint: 100, inFlight: new Map(), deep: true });

/** One delivery written in a group-committed batch (committed at once, durable after its sync). */
const queueDelivery = (gc: GroupCommitter) =>
  gc.write(() => {
    const ev = insertEvent(t.db, { accountId: account, mode: 'test' });
    return insertDelivery(t.db, { eventId: ev.eventId, accountId: account, mode: 'test', url: URL });
  });

beforeEach(async () => {
  t = tempDb();
  account = createAccount(t.db);
  putEndpoint(t.db, { accountId: account, mode: 'test', url: URL });
  gate = createWriteGate();
  conn = await openDispatchConnection(t.path, gate.buffer);
});
afterEach(async () => {
  await conn.close();
  t.dispose();
});

describe("the dispatcher connection's durability gate", () => {
  it('holds claimed rows until the sync of the batch that wrote them returns, then lets them through', async () => {
    const h = heldSync(createWalSync(t.path));
    const gc = createGroupCommitter(t.db.sqlite, 512, h.sync, () => {}, gate);
    // Nothing committed through the committer yet: nothing to wait for.
    expect(await conn.dispatch.claim(claimAll())).toEqual([]);
    expect(conn.durable()).toBeNull();

    const first = queueDelivery(gc);
    expect(await settledYet(first)).toBe(false); // committed, its sync held
    const claimed = await conn.dispatch.claim(claimAll());
    expect(claimed).toHaveLength(1);
    const gated = conn.durable();
    expect(gated).not.toBeNull();
    expect(await settledYet(gated!)).toBe(false);

    h.releaseOne();
    await first;
    await gated;
    expect(conn.durable()).toBeNull();
  });

  it('a row from a batch committed while an earlier sync runs waits for the next sync, not that one', async () => {
    const h = heldSync(createWalSync(t.path));
    const gc = createGroupCommitter(t.db.sqlite, 512, h.sync, () => {}, gate);
    const first = queueDelivery(gc);
    expect(await settledYet(first)).toBe(false); // sync 1 under way (held)
    const second = queueDelivery(gc);
    expect(await settledYet(second)).toBe(false); // committed after sync 1 started
    expect(await conn.dispatch.claim(claimAll())).toHaveLength(2);
    const gated = conn.durable()!;

    h.releaseOne(); // sync 1 returns: it covers the first batch only
    await first;
    expect(await settledYet(gated)).toBe(false);
    h.releaseOne(); // sync 2 covers the second
    await second;
    await gated;
  });

  it('lets rows through once synced when a later batch failed at COMMIT (its published number never commits)', async () => {
    const h = heldSync(createWalSync(t.path));
    const gc = createGroupCommitter(t.db.sqlite, 512, h.sync, () => {}, gate);
    const first = queueDelivery(gc);
    expect(await settledYet(first)).toBe(false); // committed, its sync held
    h.releaseOne();
    await first;
    // A batch whose COMMIT itself fails (a real SQLite COMMIT error: a deferred foreign key left
    // dangling; in production SQLITE_FULL or an I/O error): rolled back, nothing of it visible.
    const broken = gc.write(() => {
      t.db.sqlite.exec('PRAGMA defer_foreign_keys = ON');
      putEndpoint(t.db, { accountId: 'acct_gone', mode: 'test', url: URL });
    });
    await expect(broken).rejects.toThrow(/FOREIGN KEY/);
    // The server is idle from here. The row of the first batch, on disk, is claimed: it goes out
    // (after whatever sync the committer still owes), not after some batch that may never come.
    expect(await conn.dispatch.claim(claimAll())).toHaveLength(1);
    const gated = conn.durable();
    h.releaseOne();
    await gc.drain();
    expect(gated === null || (await settledYet(gated))).toBe(true);
  });

  it('lets rows through at once that a claim read (or read a newer row than) before a sync that covered it; newer rows still wait', async () => {
    const h = heldSync(createWalSync(t.path));
    const gc = createGroupCommitter(t.db.sqlite, 512, h.sync, () => {}, gate);
    const one = (n: number): ClaimArgs => ({ ...claimAll(), limit: n, deep: false });
    const maxSeq = (rows: Array<{ seq: number }>) => Math.max(...rows.map((r) => r.seq));
    // Three rows in one batch, its sync held. A claim of one reads all three (its window).
    const backlog = gc.write(() => [0, 1, 2].map(() => {
      const ev = insertEvent(t.db, { accountId: account, mode: 'test' });
      return insertDelivery(t.db, { eventId: ev.eventId, accountId: account, mode: 'test', url: URL });
    }));
    expect(await settledYet(backlog)).toBe(false);
    const first = await conn.dispatch.claim(one(1));
    expect(first).toHaveLength(1);
    const gated = conn.durable(maxSeq(first));
    expect(gated).not.toBeNull();
    expect(await settledYet(gated!)).toBe(false);
    h.releaseOne();
    await backlog;
    await gated;

    // A newer batch, its sync held: the latest batch is not on disk, but the backlog's rows are.
    const fresh = queueDelivery(gc);
    expect(await settledYet(fresh)).toBe(false);
    const second = await conn.dispatch.claim(one(1));
    expect(second).toHaveLength(1);
    expect(conn.durable(maxSeq(second))).toBeNull();
    // The last backlog row with the fresh one: the claim waits for the fresh row's sync.
    const third = await conn.dispatch.claim(one(5));
    expect(third).toHaveLength(2);
    const waits = conn.durable(maxSeq(third));
    expect(waits).not.toBeNull();
    expect(await settledYet(waits!)).toBe(false);
    // Without the rows' seq: the latest batch, as before.
    expect(conn.durable()).not.toBeNull();
    h.releaseOne();
    await fresh;
    await waits;

    // Once a sync failed, nothing goes out, not even rows known to be on disk.
    const broken = queueDelivery(gc);
    expect(await settledYet(broken)).toBe(false);
    expect(await conn.dispatch.claim(one(5))).toHaveLength(1);
    h.failNext(new Error('EIO'));
    h.releaseOne();
    await expect(broken).rejects.toMatchObject({ code: 'store.unavailable' });
    await expect(conn.durable(maxSeq(first))).rejects.toThrow('WAL sync failed');
  });

  it('never lets rows through once the server could not sync its WAL', async () => {
    const h = heldSync(createWalSync(t.path));
    const gc = createGroupCommitter(t.db.sqlite, 512, h.sync, () => {}, gate);
    const p = queueDelivery(gc);
    expect(await settledYet(p)).toBe(false);
    expect(await conn.dispatch.claim(claimAll())).toHaveLength(1);
    const gated = conn.durable()!;
    h.failNext(new Error('EIO'));
    h.releaseOne();
    await expect(p).rejects.toMatchObject({ code: 'store.unavailable', cause: { message: 'EIO' } });
    await expect(gated).rejects.toThrow('WAL sync failed');
    await expect(conn.durable()).rejects.toThrow('WAL sync failed');
  });
});

describe("the event loop's short writes outside batches (inTurn)", () => {
  it('wait for the turn held elsewhere without blocking the loop, run once it is given back, and give it back', async () => {
    const held = gate.enter(0);
    expect(held.taken).toBe(true);
    let ran = 0;
    const p = inTurn(gate, () => ++ran, 5_000);
    // The loop turns while it waits; it has not run.
    expect(await settledYet(p)).toBe(false);
    expect(ran).toBe(0);
    gate.leave();
    expect(await p).toBe(1);
    // Given back: the next one takes it at once.
    expect(gate.enter(0).taken).toBe(true);
    gate.leave();
  });
});
