// The webhook dispatcher's own connection to the store, for a dispatcher that runs on its own
// thread (src/webhooks/dispatch-worker.ts): the same DispatchStore operations as the server's
// (webhook-dispatch.ts, pg/webhook-dispatch.ts), on a connection nobody else uses.
//
// SQLite: a second WAL connection to the same file. Its transactions commit at
// synchronous=NORMAL, as the dispatcher's always have (a lost claim or record only means a lease
// runs out: at least once either way); its automatic checkpoint is off, because the server's
// checkpoint worker owns checkpoints (src/store/checkpointer.ts). Each write transaction (records)
// takes turns with the server's batches through the shared write gate (write-gate.ts: woken when
// the batch ends, not after a busy sleep); claims are reads (leases in memory) and take no turn.
// Both keep off while the checkpointer holds writes; the gate's batch numbers tell it which
// commits the rows it read can come from, for the durability gate.
// PostgreSQL: a pool of its own (two connections: one claim or record at a time, and the last
// record at stop beside a claim under way).
import { openDb } from './db';
import type { Sync } from './awaitable';
import type { ClaimArgs, ClaimedDelivery, DispatchStore } from './webhook-dispatch';
import { createDispatchStore } from './webhook-dispatch';
import { writeGateOn } from './write-gate';

export interface DispatchConnection {
  dispatch: DispatchStore;
  /**
   * The durability gate for what this connection read: null when every commit its last
   * transaction could see is on disk, else a promise that settles once it is (rejects when the
   * server's WAL sync failed). PostgreSQL: always null. `maxSeq`: the highest seq among the rows
   * about to be sent; null at once when those rows are known to be on disk already (below).
   */
  durable(maxSeq?: number): Promise<void> | null;
  close(): Promise<void>;
}

/** Longest wait for the write turn or for a checkpointer's hold, on this thread (then SQLite's own lock decides). */
const TURN_WAIT_MS = 1000;

/**
 * Open `db` for the dispatcher alone: a postgres:// URL, or a SQLite file the server has open and
 * migrated, with the server's write gate (SqliteStore.writeGate.buffer).
 */
export async function openDispatchConnection(db: string, gateBuffer: SharedArrayBuffer | null): Promise<DispatchConnection> {
  if (/^postgres(ql)?:\/\//i.test(db)) {
    const { createPgPool, guardUnavailable } = await import('./pg/connect');
    const { createPgDispatchStore } = await import('./pg/webhook-dispatch');
    const pool = createPgPool(db, { poolSize: 2 });
    return { dispatch: guardUnavailable(createPgDispatchStore(pool.sql)), durable: () => null, close: () => pool.close() };
  }
  if (!gateBuffer) throw new Error('the dispatcher thread needs the server\'s write gate on SQLite (a database file with its WAL synced by the server)');
  const gate = writeGateOn(gateBuffer);
  const conn = openDb(db);
  conn.sqlite.exec('PRAGMA synchronous = NORMAL');
  conn.sqlite.exec('PRAGMA wal_autocheckpoint = 0');
  const inner = createDispatchStore(conn);
  // The highest batch number published when a transaction of ours had ended: every commit it read is at most that.
  let seen = 0;
  // Rows known to be on disk: every delivery with a seq at or below `durableSeq`. Why a seq can
  // tell: a delivery row is never deleted and gets rowid max + 1 inside its writer's transaction,
  // under SQLite's one write lock, so committed rows' seqs rise in commit order; every row with a
  // seq at or below one a claim read was committed with or before it, so was visible to that claim
  // too, in a batch at or below the `seen` published after it (a row of the intent writer thread
  // is synced at its COMMIT). Once the WAL syncs pass that `seen`, all of them are on disk. So a
  // claim notes (seen, the highest seq it read); a later claim's rows at or below a noted seq whose
  // batch has been synced go out without waiting. Under create load most claims take rows of the
  // backlog, committed long before: without this each waited for the sync of the latest batch,
  // and the server's event loop woke this thread after nearly every WAL sync (bench/RESULTS.md, dcpu3).
  let durableSeq = 0;
  const marks: Array<{ batch: number; seq: number }> = [];
  function note(batch: number, seq: number): void {
    if (seq <= (marks.length > 0 ? marks[marks.length - 1]!.seq : durableSeq)) return;
    // Dropping the oldest only forgets (its rows wait, as before).
    if (marks.length >= 64) marks.shift();
    marks.push({ batch, seq });
  }
  function knownDurable(maxSeq: number): boolean {
    while (marks.length > 0 && gate.isDurable(marks[0]!.batch)) durableSeq = marks.shift()!.seq;
    return maxSeq <= durableSeq && !gate.hasFailed();
  }
  function turn<T>(fn: () => T): T {
    gate.waitWhileHeld(TURN_WAIT_MS);
    const g = gate.enter(TURN_WAIT_MS);
    try {
      const value = fn();
      seen = gate.begun();
      return value;
    } finally {
      if (g.taken) gate.leave();
    }
  }
  /** A claim: a read, outside the write turn (it writes nothing); off while the checkpointer holds writes. */
  function read<T>(fn: () => T): T {
    gate.waitWhileHeld(TURN_WAIT_MS);
    const value = fn();
    seen = gate.begun();
    return value;
  }
  function claimNoted(a: ClaimArgs): ClaimedDelivery[] {
    const rows = read(() => inner.claim(a));
    note(seen, inner.highestSeen());
    return rows;
  }
  const dispatch: Sync<DispatchStore> = {
    claim: (a) => claimNoted(a),
    record: (r) => (r.length === 0 ? 0 : turn(() => inner.record(r))),
    release: (r) => inner.release(r),
    // Releases write nothing (leases in memory); records take a write turn only when there are
    // some (the server's batches wait for it); the claim never does.
    recordAndClaim: (records, releases, claim) => {
      inner.release(releases);
      if (records.length > 0) turn(() => inner.record(records));
      return claim ? claimNoted(claim) : [];
    },
  };
  return {
    dispatch,
    durable: (maxSeq) => (maxSeq !== undefined && knownDurable(maxSeq) ? null : gate.durable(seen)),
    async close() {
      conn.close();
    },
  };
}
