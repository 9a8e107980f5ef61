// Group commit: the synchronous write functions of concurrent requests run in ONE SQLite
// transaction, each inside its own savepoint so one failure rolls back only itself.
// Callers await the promise, which settles only once the COMMIT is durable: nothing is
// acknowledged early. Never await inside a write function: bun:sqlite transactions are synchronous.
//
// With a WalSync (the server's database file), a batch COMMITs with synchronous=NORMAL (frames
// written to the WAL, no fsync: the event loop is not held) and its promises settle after an
// fdatasync of the WAL on another thread returns. Batches committed while a sync is under way
// share the next one. Without it (tests, :memory:), COMMIT syncs itself (synchronous=FULL).
import type { Database } from 'bun:sqlite';
import type { WalSync } from './wal-sync';

interface Pending {
  fn: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  /** Called when the whole batch failed to commit after fn succeeded (undo in-memory effects). */
  onAbort?: () => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface GroupCommitter {
  /** Queue a synchronous write; resolves with its return value once durably committed. */
  write<T>(fn: () => T, onAbort?: () => void): Promise<T>;
  /** Run a write now, outside the batch (CLI, boot): its own transaction, synced by COMMIT itself. */
  writeNow<T>(fn: () => T): T;
  /** Commit everything queued now (shutdown); its promises still settle after the sync. */
  flush(): void;
  /**
   * null when every commit so far is on disk; else a promise that settles once the commits made
   * so far are. Anything that shows what it read to the outside (an HTTP response, a webhook)
   * waits on it, so nobody sees a state a power loss could still take back.
   */
  durable(): Promise<void> | null;
  /** Hold new batches (the checkpointer's final pass) until resume(). */
  pause(): void;
  resume(): void;
  /** Wait until every commit is synced (shutdown). */
  drain(): Promise<void>;
  stats(): { batches: number; writes: number };
  /** WAL syncs done off the event loop (each covers one or more batches). */
  syncs(): number;
}

export function createGroupCommitter(sqlite: Database, maxBatch = 512, walSync: WalSync | null = null): GroupCommitter {
  let queue: Pending[] = [];
  let scheduled = false;
  let paused = false;
  let batches = 0;
  let writes = 0;
  let syncs = 0;
  // Batches committed (by number) and the highest number known to be on disk.
  let committedSeq = 0;
  let syncedSeq = 0;
  let syncing = false;
  let syncError: unknown = null;
  let unsynced: Array<{ seq: number; batch: Pending[]; results: Outcome[] }> = [];
  let waiters: Array<{ seq: number; resolve: () => void; reject: (e: unknown) => void }> = [];
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

  function flushQueue(): void {
    if (syncError !== null) {
      const q = queue;
      queue = [];
      for (const p of q) p.reject(syncError);
      return;
    }
    if (walSync) relaxed.run();
    try {
      while (queue.length > 0) {
        const batch = queue.length > maxBatch ? queue.splice(0, maxBatch) : queue;
        if (batch === queue) queue = [];
        runBatch(batch);
      }
    } finally {
      if (walSync) restore.run();
    }
  }

  function runBatch(batch: Pending[]): void {
    const results: Outcome[] = [];
    try {
      begin.run();
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    for (const p of batch) {
      savepoint.run();
      try {
        const value = p.fn();
        release.run();
        results.push({ ok: true, value });
      } catch (error) {
        rollbackTo.run();
        release.run();
        results.push({ ok: false, error });
      }
    }
    try {
      commit.run();
    } catch (error) {
      try {
        rollback.run();
      } catch {
        /* already rolled back by SQLite */
      }
      batch.forEach((p, i) => {
        const r = results[i]!;
        if (r.ok) {
          p.onAbort?.();
          p.reject(error);
        } else {
          // It had already failed on its own (a 409, a 400...): that is its answer, not the COMMIT error.
          p.reject(r.error);
        }
      });
      return;
    }
    batches++;
    writes += batch.length;
    if (!walSync) {
      settle(batch, results, null);
      return;
    }
    unsynced.push({ seq: ++committedSeq, batch, results });
    startSync();
  }

  function settle(batch: Pending[], results: Outcome[], error: unknown): void {
    batch.forEach((p, i) => {
      const r = results[i]!;
      if (!r.ok) p.reject(r.error);
      else if (error !== null) p.reject(error);
      else p.resolve(r.value);
    });
  }

  /** One sync at a time; it covers every batch committed before it started. */
  function startSync(): void {
    if (syncing || !walSync || syncedSeq >= committedSeq) return;
    syncing = true;
    const target = committedSeq;
    walSync.sync().then(
      () => {
        syncs++;
        syncing = false;
        syncedSeq = target;
        const done = unsynced.filter((u) => u.seq <= target);
        unsynced = unsynced.filter((u) => u.seq > target);
        for (const u of done) settle(u.batch, u.results, null);
        const ready = waiters.filter((w) => w.seq <= target);
        waiters = waiters.filter((w) => w.seq > target);
        for (const w of ready) w.resolve();
        startSync();
      },
      (error) => {
        // The disk refused: what was committed may not survive a power loss. Nothing more is
        // acknowledged; every write from now on fails (restart the process once the disk is fixed).
        syncing = false;
        syncError = error;
        for (const u of unsynced) settle(u.batch, u.results, error);
        unsynced = [];
        for (const w of waiters) w.reject(error);
        waiters = [];
      },
    );
  }

  function schedule(): void {
    if (scheduled || paused) return;
    scheduled = true;
    // setImmediate lets every request that is ready in this turn of the loop join the batch.
    setImmediate(() => {
      scheduled = false;
      if (!paused) flushQueue();
    });
  }

  const committer: GroupCommitter = {
    write<T>(fn: () => T, onAbort?: () => void): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject, onAbort });
        schedule();
      });
    },
    writeNow<T>(fn: () => T): T {
      return sqlite.transaction(fn).immediate();
    },
    flush: flushQueue,
    durable() {
      if (syncError !== null) return Promise.reject(syncError);
      if (syncedSeq >= committedSeq) return null;
      const seq = committedSeq;
      return new Promise<void>((resolve, reject) => waiters.push({ seq, resolve, reject }));
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      if (queue.length > 0) schedule();
    },
    async drain() {
      await committer.durable()?.catch(() => {});
    },
    stats: () => ({ batches, writes }),
    syncs: () => syncs,
  };
  return committer;
}
