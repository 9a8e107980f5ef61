// Group commit: the write functions of concurrent requests run in ONE SQLite transaction, each
// inside its own savepoint so one failure rolls back only itself. Callers await the promise,
// which settles only once the COMMIT is durable: nothing is acknowledged early.
//
// A write function may be async (the engine-neutral write path awaits its repositories), but on
// SQLite those are synchronous, so its promise settles within the same turn of the event loop:
// the batch never spans a turn, and no timer, request or I/O callback runs while it is open. One
// that awaits anything else (network I/O) would hold the transaction open for everyone: it is
// failed as soon as the event loop turns (rolled back to its savepoint, rejected, logged).
//
// When a committed batch may be answered (after the WAL sync that covers it) is commit-sync.ts's
// part: this file opens, fills and commits batches; that one answers them.
//
// A write queued with `{ savepoint: false }` runs without a savepoint of its own: for a write whose
// only way to fail once it has written is the database failing (a create without an idempotency
// key: its checks are all done before its first INSERT). A savepoint makes SQLite copy each page
// the write touches to a journal first (~15 pages per create: ~25k of its ~197k SQL instructions,
// and what makes each statement journal cost more). If such a write fails anyway, the whole batch
// is rolled back (nothing partial is committed) and only that write fails: the writes that had
// succeeded before it run again, first in the next batch, in their order (and those that had
// failed after one of them: they may have failed on its rolled-back rows), then those not yet run.
// Nothing of them was acknowledged (nothing settles before its COMMIT), and a write function may
// run again (Store.transact's rule on both engines: it touches only its repositories). Each such
// rollback drops one write from the queue, so the queue always gets through.
//
// A queue longer than one batch (a burst: anything that queues thousands) is committed a batch at
// a time, the event loop turning between batches, and a batch ends once its writes have run
// `budgetMs` (the rest stay first in the queue, in order): back to back, 5,000 queued writes held
// every request and timer for the whole queue (bench/long-steps). Each batch is still one
// transaction within one turn, settled only after its COMMIT's sync, and batches go in queue order.
import type { Database } from 'bun:sqlite';
import { span, traceStart } from '../trace';
import type { IntentWriteWatch } from './changed-elsewhere';
import { createCommitSync } from './commit-sync';
import type { WalSync } from './wal-sync';
import type { WriteGate } from './write-gate';
import type { GroupCommitter, Outcome, Pending, StoreLog, WriteOptions } from './group-commit-types';
import { WriteAwaitedIoError } from './group-commit-types';
import { refuseUncommitted, writesToRunAgain } from './batch-undo';

export type { GroupCommitter, StoreLog, WriteOptions } from './group-commit-types';
export { WriteAwaitedIoError } from './group-commit-types';

/** Longest wait of a batch for the other thread's transaction (one short claim or record) before it BEGINs anyway. */
const GATE_WAIT_MS = 100;

/**
 * The server's `budgetMs`: 512 heavier writes (an XState move, its row and events) in one batch
 * held the loop for one step of ~0.1 s; a create's batch under load (~64 writes) stays inside it.
 */
export const BATCH_BUDGET_MS = 8;

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

/** Settles a write that did not finish within its turn of the event loop. */
const LATE = Symbol('late');

/**
 * `gate`: the write turn and batch numbers shared with the webhook dispatcher's connection on its
 * own thread (write-gate.ts); each batch takes the turn before BEGIN and gives it back after its
 * COMMIT, and publishes its number before the COMMIT and the number its syncs reach after them.
 * `watch`: told of each batch's BEGIN, its COMMIT and that COMMIT's success (changed-elsewhere.ts),
 * and of its end whatever the outcome (config-writes.ts). `errorOf`: what a write is refused with
 * when BEGIN, a savepoint or COMMIT itself fails (disk-refusal.ts: a full disk answers 503).
 * `budgetMs`: a batch takes no more writes once its writes have run this long (see the top).
 */
export function createGroupCommitter(
  sqlite: Database,
  maxBatch = 512,
  walSync: WalSync | null = null,
  log: StoreLog = () => {},
  gate: WriteGate | null = null,
  watch: (Pick<IntentWriteWatch, 'began' | 'committing' | 'committed'> & { ended?(): void }) | null = null,
  errorOf: (e: unknown) => unknown = (e) => e,
  budgetMs = Infinity,
): GroupCommitter {
  let queue: Pending[] = [];
  let scheduled = false;
  // The batch under way (async), so a flush or a scheduled run never starts a second one beside it.
  let running: Promise<void> | null = null;
  let open = false;
  // Settled when the open batch ends (idle()); made only when someone asks.
  let closed: { promise: Promise<void>; resolve: () => void } | null = null;
  let paused = false;
  let batches = 0;
  let writes = 0;
  let gateWaits = 0;
  let gateWaitMs = 0;
  const sync = createCommitSync(walSync, gate);
  const begin = sqlite.prepare('BEGIN IMMEDIATE');
  const commit = sqlite.prepare('COMMIT');
  const rollback = sqlite.prepare('ROLLBACK');
  const savepoint = sqlite.prepare('SAVEPOINT w');
  const release = sqlite.prepare('RELEASE w');
  const rollbackTo = sqlite.prepare('ROLLBACK TO w');
  // The connection's own level (FULL) stays in force for every other write on it.
  const level = (sqlite.query('PRAGMA synchronous').get() as { synchronous: number }).synchronous;
  const relaxed = sqlite.prepare('PRAGMA synchronous = NORMAL');
  const restore = sqlite.prepare(`PRAGMA synchronous = ${level}`);

  /** `force`: commit everything queued even while paused (flush: shutdown). */
  function flushQueue(force: boolean): Promise<void> {
    if (running !== null) {
      const again = () => flushQueue(force);
      return running.then(again, again);
    }
    if (queue.length === 0 && sync.error() === null) return Promise.resolve();
    running = runQueue(force).finally(() => (running = null));
    return running;
  }

  async function runQueue(force: boolean): Promise<void> {
    const syncError = sync.error();
    if (syncError !== null) {
      const q = queue;
      queue = [];
      for (const p of q) p.reject(syncError);
      return;
    }
    while (queue.length > 0) {
      // Held (the checkpointer's final pass) since the last batch: resume() schedules the rest.
      if (paused && !force) return;
      // Refused between two batches (the checkpointer's database sync failed): the rest fail.
      if (sync.error() !== null) return runQueue(force);
      const batch = queue.length > maxBatch ? queue.splice(0, maxBatch) : queue;
      if (batch === queue) queue = [];
      await runBatch(batch);
      // More is queued than that batch took: let the event loop turn before the next one.
      if (queue.length > 0) await nextTurn();
    }
  }

  // Resolves with LATE once the event loop has turned (a setImmediate callback runs only after
  // every pending microtask): a write still unsettled then awaited real I/O.
  let turn: Promise<typeof LATE> | null = null;
  const turned = (): Promise<typeof LATE> =>
    (turn ??= new Promise((resolve) =>
      setImmediate(() => {
        turn = null;
        resolve(LATE);
      }),
    ));

  /**
   * One write (in its savepoint unless it has none). A synchronous one (the SQLite create: every
   * repository it calls is synchronous) is answered synchronously: no promise, no race against the
   * turn marker, no microtask between it and the next write of the batch.
   */
  function runOne(p: Pending): Outcome | Promise<Outcome> {
    if (p.savepoint) savepoint.run();
    let value: unknown;
    try {
      value = p.fn();
    } catch (error) {
      return ended(p, undone, error);
    }
    if (value !== null && typeof (value as PromiseLike<unknown>)?.then === 'function') return runLate(p, value as Promise<unknown>);
    return ended(p, released, value);
  }

  /** A write whose function returned a promise: it must settle within this turn of the event loop. */
  async function runLate(p: Pending, pending: Promise<unknown>): Promise<Outcome> {
    let value: unknown;
    try {
      value = await Promise.race([pending, turned()]);
      if (value === LATE) {
        // It goes on running without its transaction: whatever it settles with is dropped.
        pending.catch(() => {});
        throw new WriteAwaitedIoError();
      }
    } catch (error) {
      return ended(p, undone, error);
    }
    return ended(p, released, value);
  }

  /** `finish(p, arg)`, then the write's onEnd whatever happened (its part of the batch is over). */
  function ended(p: Pending, finish: (p: Pending, arg: unknown) => Outcome, arg: unknown): Outcome {
    try {
      return finish(p, arg);
    } finally {
      p.onEnd?.();
    }
  }

  /** The write succeeded: release its savepoint. */
  function released(p: Pending, value: unknown): Outcome {
    try {
      if (p.savepoint) release.run();
      // (SQLite ends the transaction itself on some errors, SQLITE_FULL or IOERR without a
      // statement journal: one the write caught and went on from must not let the rest of the
      // batch run outside any transaction, each statement committing on its own.)
      else if (!sqlite.inTransaction) throw new Error('the transaction ended inside a write (SQLite rolled it back)');
    } catch (error) {
      return undone(p, error);
    }
    return { ok: true, value };
  }

  /** The write failed: back to its savepoint; without one (or with the transaction gone) the batch is broken. */
  function undone(p: Pending, error: unknown): Outcome {
    if (error instanceof WriteAwaitedIoError) log('error', 'write rolled back: it awaited I/O inside its transaction', { error: error.message });
    if (!p.savepoint || !sqlite.inTransaction) return { ok: false, error, broke: true };
    rollbackTo.run();
    release.run();
    return { ok: false, error };
  }

  /**
   * Take the shared write turn (bounded: past it SQLite's own lock decides); returns how to give it
   * back. Awaited, never blocking: the turn may be the intent writer's through its COMMIT's fsync.
   */
  async function enterGate(): Promise<() => void> {
    if (!gate) return () => {};
    const t = gate.enterAsync(GATE_WAIT_MS);
    const g = t instanceof Promise ? await t : t;
    if (g.waitedMs > 0) {
      gateWaits++;
      gateWaitMs += g.waitedMs;
    }
    return g.taken ? () => gate.leave() : () => {};
  }

  async function runBatch(batch: Pending[]): Promise<void> {
    const leave = await enterGate();
    try {
      await runGated(batch);
    } finally {
      leave();
    }
  }

  async function runGated(batch: Pending[]): Promise<void> {
    const results: Outcome[] = [];
    const t0 = traceStart();
    // synchronous=NORMAL only from here to this batch's COMMIT (SQLite refuses to change it inside
    // a transaction): this batch's promises settle after the WAL sync, but any other write on this
    // connection commits at the connection's own level. Set around the whole queue, it covered the
    // waits for the write turn above, and a write outside the batches (a dashboard revoke, an
    // endpoint change, a key's creation) that ran in one committed unsynced, answered as done.
    if (walSync) relaxed.run();
    try {
      begin.run();
    } catch (error) {
      if (walSync) restore.run();
      const e = errorOf(error);
      for (const p of batch) p.reject(e);
      return;
    }
    watch?.began();
    open = true;
    let broke = -1;
    const started = performance.now();
    try {
      try {
        for (let i = 0; i < batch.length; i++) {
          const o = runOne(batch[i]!);
          const r = o instanceof Promise ? await o : o;
          results.push(r);
          // A write without a savepoint failed: the transaction cannot keep the others' work alone.
          if (!r.ok && r.broke) {
            broke = i;
            break;
          }
          // Past the budget: the writes not run yet go back, first in the queue, in their order.
          if (i + 1 < batch.length && performance.now() - started > budgetMs) {
            queue = batch.splice(i + 1).concat(queue);
            break;
          }
        }
      } catch (error) {
        // A savepoint statement itself failed (runOne catches what the writes throw): nothing of
        // this batch is trusted; it is rolled back whole and every write in it refused.
        try {
          rollback.run();
        } catch {
          /* already rolled back by SQLite */
        }
        const e = errorOf(error);
        batch.forEach((p, i) => {
          if (results[i]?.ok) p.onAbort?.();
          p.reject(e);
        });
        return;
      }
      if (broke >= 0) return rollBackBatch(batch, results, broke);
      commitBatch(batch, results, t0);
    } finally {
      // Still synchronous from the COMMIT on: nothing runs on this connection between it and here.
      open = false;
      watch?.ended?.();
      if (walSync) restore.run();
      const c = closed;
      closed = null;
      c?.resolve();
    }
  }

  function commitBatch(batch: Pending[], results: Outcome[], t0: number): void {
    // Before the COMMIT: a reader on another connection that sees this batch also sees its number.
    gate?.committing(sync.next());
    watch?.committing();
    try {
      commit.run();
    } catch (failure) {
      try {
        rollback.run();
      } catch {
        /* already rolled back by SQLite */
      }
      refuseUncommitted(batch, results, errorOf(failure));
      sync.commitFailed();
      return;
    }
    watch?.committed();
    batches++;
    writes += batch.length;
    span('commit.batch', t0, batch.length);
    sync.committed(batch, results);
  }

  /**
   * A write without a savepoint failed (batch[at]): roll the transaction back. It fails with its
   * own error; those before it that had succeeded lost their rows with the transaction and run
   * again, first in the queue (onAbort: undo what the first run did in memory); those before it
   * that had failed on their own keep that answer only if no write before them had succeeded
   * (else they may have failed on its rows, rolled back now: a 409 naming a state that was never
   * committed, and may never be if its re-run fails), so they run again too, in their place; those
   * after it, not run yet, follow in order. (One that awaited I/O is still running: it is refused.)
   */
  function rollBackBatch(batch: Pending[], results: Outcome[], at: number): void {
    const error = (results[at] as { error: unknown }).error;
    try {
      rollback.run();
    } catch {
      /* already rolled back by SQLite */
    }
    const again = writesToRunAgain(batch, results, at);
    log('error', 'write batch rolled back: a write without a savepoint failed; the others run again', { error: String(error), again: again.length });
    batch[at]!.reject(error);
    queue = again.concat(batch.slice(at + 1), queue);
  }

  function schedule(): void {
    if (scheduled || paused) return;
    scheduled = true;
    // setImmediate lets every request that is ready in this turn of the loop join the batch.
    setImmediate(() => {
      scheduled = false;
      if (!paused) void flushQueue(false);
    });
  }

  const committer: GroupCommitter = {
    write<T>(fn: () => T | Promise<T>, onAbort?: () => void, onEnd?: () => void, opts?: WriteOptions): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject, onAbort, onEnd, queuedAt: traceStart(), savepoint: opts?.savepoint !== false });
        schedule();
      });
    },
    writeNow<T>(fn: () => T): T {
      if (open) throw new Error('writeNow inside an open group-commit batch: queue it with write() instead');
      return sqlite.transaction(fn).immediate();
    },
    flush: () => flushQueue(true),
    busy: () => open,
    idle() {
      if (!open) return null;
      if (!closed) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => (resolve = r));
        closed = { promise, resolve };
      }
      return closed.promise;
    },
    durable: sync.durable,
    refused: sync.error,
    refuse(error) {
      sync.refuse(error);
      // Whatever is queued fails now, not at the next write.
      if (queue.length > 0) schedule();
    },
    pause() {
      paused = true;
      gate?.hold(true);
    },
    resume() {
      paused = false;
      gate?.hold(false);
      if (queue.length > 0) schedule();
    },
    async drain() {
      await running;
      await committer.durable()?.catch(() => {});
    },
    stats: () => ({ batches, writes, gateWaits, gateWaitMs }),
    syncs: sync.syncs,
  };
  return committer;
}
