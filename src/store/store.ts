// The engine-neutral handle the composition root builds everything from: every repository, one
// way to run a transaction, the durability gate, a health check and close. SQLite: one
// connection, writes group-committed (group-commit.ts), the WAL synced off the event loop and
// checkpointed on a worker. PostgreSQL: src/store/pg (a pool; each transact one connection).
import { realpathSync } from 'node:fs';
import { intentWriteWatch } from './changed-elsewhere';
import { configBatchWatch } from './config-writes';
import { startCheckpointer, type Checkpointer } from './checkpointer';
import { openDb, type Db } from './db';
import type { DetectionStates } from './detection';
import { failThisCommit } from './faults';
import { BATCH_BUDGET_MS, createGroupCommitter, type GroupCommitter, type StoreLog, type WriteOptions } from './group-commit';
import { releaseInstanceLease, renewInstanceLease, takeInstanceLease, type LeaseHolder } from './instance-lease';
import { forgetClaimsOfOthers } from './claims';
import { expireLeasesOfOthers } from './leases';
import { startIntentWriter, type IntentWriter } from './intent-writer';
import { createSqliteRepos, type SqliteRepos, type StoreRepos } from './repos';
import { createWalSync } from './wal-sync';
import { diskRefusal, type DiskRefusal } from './disk-refusal';
import { createWriteGate, type WriteGate } from './write-gate';

export type { StoreRepos } from './repos';

export interface Store {
  engine: 'sqlite' | 'postgres';
  /** Every repository, on the plain connection / pool. */
  repos: StoreRepos;
  /**
   * One transaction. fn gets repositories bound to it (on PG: one pooled connection,
   * BEGIN..COMMIT; on SQLite: the group committer's batch, a savepoint per write).
   * fn may only await its TxRepos (never network I/O): on SQLite the batch is open.
   * `opts.savepoint` false (SQLite; PostgreSQL has one transaction per fn anyway): fn gets no
   * savepoint of its own, for a write that cannot fail half-way but by the database failing; if it
   * fails all the same, its whole batch is rolled back and the others in it run again (group-commit.ts).
   * On both engines fn may run more than once (PostgreSQL: a serialization failure; SQLite: its
   * batch rolled back for another write): it touches nothing but its repositories.
   */
  transact<T>(fn: (tx: StoreRepos) => T | Promise<T>, opts?: WriteOptions): Promise<T>;
  /** null when every commit is durable, else a promise (SQLite WAL sync). PG: always null. */
  durable(): Promise<void> | null;
  /** Throws when the database cannot be reached (readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** The machine's tag sets the queries need (compose passes statesTagged(...)). */
  states: DetectionStates;
  log: StoreLog;
  /**
   * A CLI command: a short-lived connection beside a running server. SQLite opens no WAL-sync
   * thread and no checkpoint worker; every commit syncs itself (synchronous=FULL), as it always did.
   */
  oneShot?: boolean;
  /** This instance's id: the owner of the claims and work leases it takes. */
  instanceId?: string;
  /**
   * SQLite file (not one-shot): write creates on a thread of their own with its own connection
   * (src/store/intent-writer.ts; serve does). Without it creates are written in the group
   * committer's batches on the event loop.
   */
  writerThread?: boolean;
}

/** The one serve per SQLite file (contract 14): src/actors/instance-lease.ts holds it. */
export interface InstanceLeaseStore {
  take(me: Omit<LeaseHolder, 'heartbeatAt'>, now: number, leaseMs: number, gone: (h: LeaseHolder) => boolean): ReturnType<typeof takeInstanceLease>;
  /** false when another instance took the lease over. */
  renew(instanceId: string, now: number, leaseMs: number): boolean;
  release(instanceId: string): void;
}

/** What only SQLite has: the file's single-instance lease, commit statistics, a test fault. */
export interface SqliteStore extends Store {
  engine: 'sqlite';
  /**
   * Synchronous answers, except while a group-commit batch is open (a write awaited I/O): then a
   * call waits for the batch to end and answers a promise (outsideBatches). Code above src/store
   * always awaits (StoreRepos); a synchronous caller (a store test) calls between batches.
   */
  repos: SqliteRepos;
  db: Db;
  instanceLease: InstanceLeaseStore;
  /** The group committer's batches and writes plus the intent writer's (its transactions and creates). */
  commitStats(): { batches: number; writes: number; syncs: number; gateWaits: number; gateWaitMs: number; writerBatches: number; writerWrites: number };
  /** The intent writer thread (SQLite file under serve: StoreOptions.writerThread), else null. */
  intentWriter: IntentWriter | null;
  /**
   * The write turn and batch numbers shared with a connection on another thread (the webhook
   * dispatcher's, src/store/dispatch-connection.ts); null without a WAL sync (:memory:, one-shot).
   */
  writeGate: WriteGate | null;
  /**
   * True on the first call and whenever intents were written other than by this connection's
   * batches (a CLI command, another process, the intent writer thread) since the previous call;
   * false when only they wrote intents, whatever else other connections committed (the runtime
   * then skips its periodic scan: it already follows every row its batches committed).
   */
  changedElsewhere(): boolean;
  /**
   * The serve that holds this file's instance lease starts: every claim and work lease held by
   * another owner belongs to a predecessor that is gone (one serve per file), so they are freed
   * now rather than after their expiry (a broadcast claim would hold reconciliation back 60 s).
   */
  forgetPredecessors(instanceId: string): void;
  /** Test-only (createCore's faults): make the COMMIT of the transaction under way fail. */
  failThisCommit(): void;
}

export const isPostgresUrl = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db);

export const sqliteOf = (store: Store): SqliteStore | null => (store.engine === 'sqlite' ? (store as SqliteStore) : null);

/** Open the database `config.db` names: a postgres:// URL, else a SQLite file path or :memory:. */
export async function openStore(config: { db: string; cluster?: { poolSize?: number } }, opts: StoreOptions): Promise<Store> {
  if (isPostgresUrl(config.db)) {
    // A one-shot CLI command needs a connection or two, not a server's pool.
    const max = opts.oneShot ? 2 : config.cluster?.poolSize;
    return (await import('./pg/open')).openPgStore(config.db, { ...opts, max });
  }
  return openSqliteStore(config.db, opts);
}

/**
 * Wrap every method of a repository so it refuses to run once its write is over (see transact),
 * and so that a disk's refusal (SQLITE_FULL, an I/O error) reaches the write as store.unavailable.
 */
function fence<R extends object>(repo: R, name: string, open: () => boolean, errorOf: (e: unknown) => unknown): R {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(repo)) {
    out[k] =
      typeof v === 'function'
        ? (...args: unknown[]) => {
            if (!open()) throw new Error(`${name}.${k}: used after its write ended (outside its transaction)`);
            try {
              return (v as (...a: unknown[]) => unknown).apply(repo, args);
            } catch (e) {
              throw errorOf(e);
            }
          }
        : v;
  }
  return out as R;
}

/**
 * The repositories as everything outside the batches uses them (HTTP handlers, timers, the
 * runtime's reads): a call made while a group-commit batch is open waits until that batch has
 * committed or rolled back, then runs. On one connection, a statement run while a batch is open
 * runs inside the batch's transaction and inside the savepoint of the write under way: a
 * dashboard revoke (or a key created, an endpoint set) would share that write's fate, and be
 * rolled back with it after its caller was told it was done; a read would see rows that may never
 * commit. A batch is open across a turn of the event loop only when a write awaited I/O (the
 * committer then rolls that write back, group-commit.ts), so this costs one check per call.
 * The one way onto the connection from outside a write (raw statements stay in src/store). A
 * disk's refusal (SQLITE_FULL, an I/O error) comes out as store.unavailable (`errorOf`).
 */
function outsideBatches<R extends object>(repo: R, committer: GroupCommitter, errorOf: (e: unknown) => unknown): R {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(repo)) {
    if (typeof v !== 'function') {
      out[k] = v;
      continue;
    }
    const fn = v as (...a: unknown[]) => unknown;
    const now = (args: unknown[]) => {
      try {
        return fn.apply(repo, args);
      } catch (e) {
        throw errorOf(e);
      }
    };
    const later = async (args: unknown[]) => {
      for (let idle = committer.idle(); idle !== null; idle = committer.idle()) await idle;
      return now(args);
    };
    out[k] = (...args: unknown[]) => (committer.busy() ? later(args) : now(args));
  }
  return out as R;
}

/** The file's real path (SQLite follows symlinks: the probe goes beside the real file), else the path as given. */
function realOrGiven(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function openSqliteStore(path: string, opts: StoreOptions): SqliteStore {
  const db = openDb(path);
  // A file database syncs its WAL off the event loop and checkpoints on a worker thread.
  const walSync = path === ':memory:' || opts.oneShot ? null : createWalSync(path);
  const writeGate = walSync ? createWriteGate() : null;
  const watch = intentWriteWatch(db.sqlite);
  const config = configBatchWatch(db.sqlite);
  // Refused since a sync failed: the committer's own, or the intent writer thread's (commit-sync.ts).
  const disk: DiskRefusal | null = path === ':memory:' || path === '' ? null : diskRefusal(realOrGiven(path), () => committer.refused());
  const errorOf = disk ? disk.errorOf : (e: unknown) => e;
  const committer: GroupCommitter = createGroupCommitter(
    db.sqlite,
    512,
    walSync,
    opts.log,
    writeGate,
    {
      began() {
        watch.began();
        config.began();
      },
      committing: watch.committing,
      committed: watch.committed,
      ended: config.ended,
    },
    errorOf,
    BATCH_BUDGET_MS,
  );
  db.durable = () => committer.durable();
  const intentWriter = writeGate && opts.writerThread ? startIntentWriter({ db: path, gate: writeGate.buffer, log: opts.log, errorOf }) : null;
  const checkpointer: Checkpointer | null = walSync
    ? startCheckpointer({
        dbPath: path,
        sqlite: db.sqlite,
        committer,
        log: (level, msg, f) => opts.log(level, msg, f),
        // The writer thread's commits grow the WAL too.
        writes: () => committer.stats().writes + (intentWriter?.stats().writes ?? 0),
      })
    : null;
  const raw = createSqliteRepos(db, opts.states, opts.instanceId);
  const repos = Object.fromEntries(Object.entries(raw).map(([k, r]) => [k, outsideBatches(r, committer, errorOf)])) as unknown as SqliteRepos;
  // The durability gate reads no table: it may be asked while a batch is open.
  repos.liveEvents.durable = raw.liveEvents.durable;
  // Writes run one after another in the batch: the fenced repositories work only while one is in
  // its savepoint. A write function still running after its savepoint ended (it awaited I/O and
  // the committer gave up on it) cannot write outside any transaction.
  let inWrite = false;
  const isOpen = () => inWrite;
  // One function for every write's end (not a closure per write).
  const writeEnded = () => {
    inWrite = false;
  };
  const txRepos = Object.fromEntries(Object.entries(raw).map(([k, r]) => [k, fence(r, k, isOpen, errorOf)])) as unknown as StoreRepos;
  const beatOutsideBatches = (fn: () => boolean) => {
    // Never inside the group committer's open batch (it never spans a turn of the event loop; if
    // it ever did, the heartbeat would join and share its fate): the next beat tries again.
    if (committer.busy()) throw new Error('instance lease: a write batch is open; retry at the next beat');
    return fn();
  };
  return {
    engine: 'sqlite',
    repos,
    db,
    transact<T>(fn: (tx: StoreRepos) => T | Promise<T>, opts?: WriteOptions): Promise<T> {
      return committer.write(
        () => {
          inWrite = true;
          return fn(txRepos);
        },
        undefined,
        writeEnded,
        opts,
      );
    },
    durable: () => committer.durable(),
    async ping() {
      // Not ready while writes are refused (a failed sync: until restart) or the disk had no room
      // for one and still has none (disk-refusal.ts).
      await disk?.check();
      db.sqlite.query('SELECT 1').get();
    },
    async close() {
      await intentWriter?.stop();
      await committer.flush();
      await committer.drain();
      await checkpointer?.stop();
      walSync?.close();
      db.close();
    },
    instanceLease: {
      take: (me, now, leaseMs, gone) => takeInstanceLease(db.sqlite, me, now, leaseMs, gone),
      renew: (id, now, leaseMs) => beatOutsideBatches(() => renewInstanceLease(db.sqlite, id, now, leaseMs)),
      release: (id) => releaseInstanceLease(db.sqlite, id),
    },
    commitStats: () => {
      const w = intentWriter?.stats() ?? { batches: 0, writes: 0 };
      const c = committer.stats();
      return { ...c, batches: c.batches + w.batches, writes: c.writes + w.writes, syncs: committer.syncs(), writerBatches: w.batches, writerWrites: w.writes };
    },
    intentWriter,
    writeGate,
    // While a batch is open its own uncommitted writes are in the count: say "changed" (a scan,
    // which reads after the batch) and leave the watch's marks as they are.
    changedElsewhere: () => committer.busy() || watch.changedElsewhere(),
    forgetPredecessors(instanceId) {
      forgetClaimsOfOthers(db.sqlite, instanceId);
      expireLeasesOfOthers(db.sqlite, instanceId);
    },
    failThisCommit: () => failThisCommit(db.sqlite),
  };
}

