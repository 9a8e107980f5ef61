// The group committer's types and errors (its mechanism: group-commit.ts), apart so that file stays
// the mechanism alone. Re-exported from group-commit.ts, where callers import them.
import type { AppError } from '../domain/errors';

/** A log line (src/log.ts's Log fits it; the store layer imports nothing above domain). */
export type StoreLog = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

export interface Pending {
  fn: () => unknown;
  /** Called once this write's savepoint is released or rolled back: its transaction is over for it. */
  onEnd?: () => void;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  /**
   * Called when fn succeeded but its batch did not commit (undo in-memory effects): its COMMIT
   * failed (the write is rejected), or a write without a savepoint broke it (fn runs again).
   */
  onAbort?: () => void;
  /** traceStart() when queued (0 untraced). */
  queuedAt: number;
  /** false: no savepoint of its own; its failure rolls the whole batch back (see the top of group-commit.ts). */
  savepoint: boolean;
}

/** Options of GroupCommitter.write. */
export interface WriteOptions {
  /**
   * false: run without a savepoint of its own (cheaper), for a write that cannot fail half-way
   * except by the database failing; if it fails anyway, its whole batch is rolled back and the
   * others in it run again in the next batch. Default true.
   */
  savepoint?: boolean;
}

export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown; /** The batch's transaction must go: no savepoint held this write. */ broke?: true };

export interface GroupCommitter {
  /**
   * Queue a write; resolves with its return value once durably committed. `fn` may return a
   * promise that only awaits synchronous repositories (see the top of group-commit.ts); `onEnd` runs
   * when its savepoint is over (whatever it still does after that must not touch the database).
   */
  write<T>(fn: () => T | Promise<T>, onAbort?: () => void, onEnd?: () => void, opts?: WriteOptions): Promise<T>;
  /** Run a write now, outside the batch (CLI, boot): its own transaction, synced by COMMIT itself. */
  writeNow<T>(fn: () => T): T;
  /** Commit everything queued now (shutdown); its promises still settle after the sync. */
  flush(): Promise<void>;
  /** True while a batch's transaction is open (nothing else may BEGIN on this connection then). */
  busy(): boolean;
  /**
   * null when no batch is open, else a promise that settles once the open one has committed or
   * rolled back. A statement run on this connection while a batch is open runs inside the batch's
   * transaction (and inside the savepoint of the write under way): it shares that write's fate
   * and its COMMIT's, whatever its caller was told. Everything outside the batches waits on this
   * (store.ts outsideBatches).
   */
  idle(): Promise<void> | null;
  /**
   * null when every commit so far is on disk; else a promise that settles once the commits made
   * so far are. Anything that shows what it read to the outside (an HTTP response, a webhook)
   * waits on it, so nobody sees a state a power loss could still take back.
   */
  durable(): Promise<void> | null;
  /**
   * The disk refused to sync the database file (the checkpointer): from now on nothing is
   * acknowledged, as after a failed WAL sync (commit-sync.ts); restart once the disk is fixed.
   */
  refuse(error: unknown): void;
  /** null, or what every write fails with since a sync failed (AppError store.unavailable, the sync's error its cause). */
  refused(): AppError | null;
  /** Hold new batches (the checkpointer's final pass) until resume(). */
  pause(): void;
  resume(): void;
  /** Wait until every commit is synced (shutdown). */
  drain(): Promise<void>;
  /** Batches and writes committed; waits for the shared write turn (another thread's transaction) and their total ms. */
  stats(): { batches: number; writes: number; gateWaits: number; gateWaitMs: number };
  /** WAL syncs done off the event loop (each covers one or more batches). */
  syncs(): number;
}

export class WriteAwaitedIoError extends Error {
  constructor() {
    super('a write function was still running when the event loop turned (it awaited something other than its repositories); it was rolled back');
    this.name = 'WriteAwaitedIoError';
  }
}

