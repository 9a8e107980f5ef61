// The durability half of group commit (the batching half: group-commit.ts): when a committed
// batch's writes may be answered. Apart because it has a life of its own: it runs after the batch
// is over (the WAL sync returns on a later turn of the event loop), it numbers the batches for the
// other thread's readers (write-gate.ts), and once the disk refuses it refuses everything after:
// a failed WAL sync here, or a failed sync of the database file in the checkpointer (refuse()).
//
// With a WalSync (the server's database file), a batch COMMITs with synchronous=NORMAL (frames
// written to the WAL, no fsync: the event loop is not held) and its promises settle after an
// fdatasync of the WAL on another thread returns. Batches committed while a sync is under way
// share the next one. Without it (tests, :memory:), COMMIT syncs itself (synchronous=FULL) and a
// committed batch is answered at once.
import { span, traceStart } from '../trace';
import type { AppError } from '../domain/errors';
import { writesRefused } from './disk-refusal';
import type { Outcome, Pending } from './group-commit-types';
import type { WalSync } from './wal-sync';
import type { WriteGate } from './write-gate';

export interface CommitSync {
  /** The number the next committed batch gets (published before its COMMIT: gate.committing). */
  next(): number;
  /** A batch committed: its writes settle (each with its own outcome) once a sync covers it. */
  committed(batch: Pending[], results: Outcome[]): void;
  /** A COMMIT failed after its number was published (see the body). */
  commitFailed(): void;
  /**
   * null, or the error every write fails with from then on, once a sync failed: AppError
   * store.unavailable (a request answers 503, src/store/disk-refusal.ts), the sync's error its cause.
   */
  error(): AppError | null;
  /**
   * The disk refused a sync (the checkpointer's of the database file): as a failed WAL sync,
   * nothing from now on is acknowledged, not even a batch already committed and waiting for its
   * WAL sync, and every later write fails with `error`.
   */
  refuse(error: unknown): void;
  /** GroupCommitter.durable: null when every commit so far is on disk, else when they are. */
  durable(): Promise<void> | null;
  /** WAL syncs done. */
  syncs(): number;
}

export function createCommitSync(walSync: WalSync | null, gate: WriteGate | null): CommitSync {
  let syncs = 0;
  // Batches committed (by number) and the highest number known to be on disk.
  let committedSeq = 0;
  let syncedSeq = 0;
  let syncing = false;
  let syncError: AppError | null = null;
  let unsynced: Array<{ seq: number; batch: Pending[]; results: Outcome[]; committedAt: number }> = [];
  let waiters: Array<{ seq: number; resolve: () => void; reject: (e: unknown) => void }> = [];

  function settle(batch: Pending[], results: Outcome[], error: unknown): void {
    for (let i = 0; i < batch.length; i++) {
      const p = batch[i]!;
      const r = results[i]!;
      if (!r.ok) p.reject(r.error);
      else if (error !== null) p.reject(error);
      else p.resolve(r.value);
    }
  }

  function refuse(error: unknown): void {
    if (syncError !== null) return;
    const refused = writesRefused(error);
    syncError = refused;
    gate?.failed();
    for (const u of unsynced) settle(u.batch, u.results, refused);
    unsynced = [];
    for (const w of waiters) w.reject(refused);
    waiters = [];
  }

  /**
   * Refused already, or found so now: the intent writer thread's connection (the same file, its
   * own fsync at COMMIT) marks the shared gate failed when its sync fails, and from then on this
   * connection's commits cannot be trusted either (the same page cache), nor may a read show them.
   */
  function refusedNow(): boolean {
    if (syncError === null && gate?.hasFailed()) refuse(new Error('a sync of another connection to this file failed (the intent writer thread)'));
    return syncError !== null;
  }

  /** One sync at a time; it covers every batch committed before it started. */
  function startSync(): void {
    if (syncing || !walSync || syncError !== null || syncedSeq >= committedSeq) return;
    syncing = true;
    const target = committedSeq;
    walSync.sync().then(
      () => {
        syncs++;
        syncing = false;
        // Refused meanwhile (refuse()): what it covered was failed then, and stays failed.
        if (syncError !== null) return;
        syncedSeq = target;
        gate?.synced(target);
        const done = unsynced.filter((u) => u.seq <= target);
        unsynced = unsynced.filter((u) => u.seq > target);
        for (const u of done) {
          settle(u.batch, u.results, null);
          // (An empty one stands for a batch whose COMMIT failed: nothing to time.)
          if (u.batch.length === 0) continue;
          span('commit.durable', u.committedAt, u.batch.length);
          span('commit.wait', u.batch[0]!.queuedAt, u.batch.length);
        }
        const ready = waiters.filter((w) => w.seq <= target);
        waiters = waiters.filter((w) => w.seq > target);
        for (const w of ready) w.resolve();
        startSync();
      },
      (error) => {
        // The disk refused: what was committed may not survive a power loss. Nothing more is
        // acknowledged; every write from now on fails (restart the process once the disk is fixed).
        syncing = false;
        refuse(error);
      },
    );
  }

  return {
    next: () => committedSeq + 1,
    committed(batch, results) {
      // A batch that ran just before the refusal reached the committer: it is not acknowledged either.
      if (refusedNow()) {
        settle(batch, results, syncError);
        return;
      }
      if (!walSync) {
        settle(batch, results, null);
        return;
      }
      unsynced.push({ seq: ++committedSeq, batch, results, committedAt: traceStart() });
      startSync();
    },
    commitFailed() {
      // Its number was published (gate.committing): a reader on the other thread may have read it
      // and waits for a sync to reach it. Count it as an empty batch and sync, or that reader's
      // rows would wait for the next batch to commit, on an idle server forever.
      if (gate && walSync) {
        unsynced.push({ seq: ++committedSeq, batch: [], results: [], committedAt: traceStart() });
        startSync();
      }
    },
    error: () => (refusedNow() ? syncError : null),
    refuse,
    durable() {
      if (refusedNow()) return Promise.reject(syncError);
      if (syncedSeq >= committedSeq) return null;
      const seq = committedSeq;
      return new Promise<void>((resolve, reject) => waiters.push({ seq, resolve, reject }));
    },
    syncs: () => syncs,
  };
}
