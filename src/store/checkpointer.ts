// WAL checkpoints on a Worker thread. The server's connection commits group-committed batches
// without an fsync (src/store/wal-sync.ts syncs the WAL off the event loop), and its automatic
// checkpoint is turned off: a checkpoint syncs the WAL, copies pages into the database and syncs
// the database, which would hold the event loop for two fsyncs. Here a second connection, at
// synchronous=FULL, does it on its own thread. SQLite reuses the WAL from the start only after
// a checkpoint has copied every frame AND synced the database file, so no frame is overwritten
// before its page is durable in the database.
//
// Under steady writes a PASSIVE checkpoint never catches the last frames (new ones keep coming),
// so the WAL would only grow. When it passes `maxFrames`, batches are held for one more pass
// (only the frames since the previous one), which then completes, and the next commit starts the
// WAL over. Requests keep being served meanwhile; only their commits wait. The hold is the write
// gate's (write-gate.ts): the threads' connections (the webhook dispatcher's, the intent
// writer's) wait for it before their BEGIN too.
//
// SQLite syncs the database file only in a pass that reaches the WAL's end (wal.c, walCheckpoint:
// the unheld passes before it copy pages and leave them dirty in the page cache), so that sync,
// inside the hold, used to write back everything the ~10 passes since the last hold had copied:
// 10-20 ms of the hold. So the worker first calls fdatasync on the database file WITHOUT holding
// anyone, and the held pass's own fsyncs have only its last few pages left. Safety does not rest
// on that extra sync: the held pass still runs at synchronous=FULL (WAL fsync, copy, database
// fsync, then nBackfill), exactly as before.
import { constants, type Database } from 'bun:sqlite';
import { fstatSync, openSync, realpathSync, statSync } from 'node:fs';
import { span, traceStart } from '../trace';
import type { GroupCommitter } from './group-commit';

// Inline source (a Blob URL): the compiled single-file binary needs no worker file beside it.
const WORKER_SOURCE = `
import { Database } from 'bun:sqlite';
import { fdatasyncSync, fstatSync, writeFileSync } from 'node:fs';
// The thread's name as the OS shows it (src/store/thread-name.ts; this source is inline, so not imported).
try { writeFileSync('/proc/thread-self/comm', 'pf-checkpoint'); } catch {}
let db = null;
// The flush's write-back, 1 MiB of the file at a time, each step written and waited for before the
// next (sync_file_range WAIT_BEFORE | WRITE | WAIT_AFTER): see flush() in checkpointer.ts. null where
// there is no glibc sync_file_range (then the fdatasync alone, as before).
const STEP = 1 << 20;
let syncRange;
function writeBackInSteps(fd) {
  if (syncRange === undefined) {
    try {
      const { dlopen } = require('bun:ffi');
      syncRange = dlopen('libc.so.6', { sync_file_range: { args: ['i32', 'i64', 'i64', 'u32'], returns: 'i32' } }).symbols.sync_file_range;
    } catch {
      syncRange = null;
    }
  }
  if (!syncRange) return;
  const size = fstatSync(fd).size;
  for (let at = 0; at < size; at += STEP) {
    // A failed write-back is reported to this descriptor once: here, not to the fdatasync after.
    if (syncRange(fd, at, STEP, 7) !== 0) throw new Error('write-back of the database file failed (sync_file_range)');
  }
}
self.onmessage = (e) => {
  const m = e.data;
  try {
    if (m.type === 'open') {
      db = new Database(m.path);
      db.exec('PRAGMA busy_timeout = 5000');
      db.exec('PRAGMA synchronous = FULL');
      postMessage({ type: 'ready' });
    } else if (m.type === 'checkpoint') {
      const r = db.query('PRAGMA wal_checkpoint(PASSIVE)').get();
      postMessage({ type: 'checkpointed', busy: r.busy, log: r.log, checkpointed: r.checkpointed });
    } else if (m.type === 'flush') {
      writeBackInSteps(m.fd);
      fdatasyncSync(m.fd);
      postMessage({ type: 'flushed' });
    } else if (m.type === 'close') {
      db?.close();
      db = null;
      postMessage({ type: 'closed' });
    }
  } catch (err) {
    // The disk's refusal (a sync or write of the database file) is told apart from a full disk
    // (a write of the file refused for space: nothing pretends to be written, a later pass redoes it)
    // and from the rest.
    const code = String(err?.code ?? '');
    const full = m.type === 'checkpoint' && code === 'SQLITE_FULL';
    const disk = m.type === 'flush' || (m.type === 'checkpoint' && code.startsWith('SQLITE_IOERR'));
    postMessage({ type: 'error', error: String(err), disk, full });
  }
};`;

export interface CheckpointerOptions {
  dbPath: string;
  /** The server's connection: its automatic checkpoint is turned off while this runs. */
  sqlite: Database;
  committer: GroupCommitter;
  /** Writes committed so far (a pass runs only after new ones); default the committer's. */
  writes?: () => number;
  log: (level: 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
  /** How often to look (a PASSIVE checkpoint with nothing new to copy costs next to nothing). */
  intervalMs?: number;
  /**
   * WAL size, in frames, past which writes are held for a completing pass. Below it the WAL
   * starts over whenever a pass catches up between commits. 10000 frames (~40 MB): under
   * sustained create load a hold (a few ms: the last frames' copy and SQLite's two fsyncs)
   * comes about twice a second, instead of ten times as with SQLite's 1000.
   */
  maxFrames?: number;
  /** Longest hold of the writes, in case the worker does not answer. */
  maxPauseMs?: number;
}

export interface Checkpointer {
  /** Settles once the worker's connection is open (checkpoints start then). */
  ready(): Promise<void>;
  stop(): Promise<void>;
  /** Checkpoints run, passes that held writes, and those that then reached the WAL's end. */
  stats(): { checkpoints: number; holds: number; completed: number };
}

type Reply = { type: 'ready' | 'closed' | 'flushed' } | { type: 'checkpointed'; busy: number; log: number; checkpointed: number } | { type: 'error'; error: string; disk?: boolean; full?: boolean };

// One read-only descriptor per database file for the whole process, opened at its first hold and
// never closed: closing ANY descriptor of a file drops every POSIX lock this process holds on it
// (SQLite's own connections' included, which SQLite itself works around for the descriptors it
// opens), so this one stays open as long as the process may have a connection to the file.
const dbFds = new Map<string, number>();

function dbFd(path: string): number {
  const real = realpathSync(path);
  const fd = dbFds.get(real);
  if (fd !== undefined) {
    const a = fstatSync(fd);
    const b = statSync(real, { throwIfNoEntry: false });
    if (b && a.ino === b.ino && a.dev === b.dev) return fd;
    // Another file at the same path now (tests): a new descriptor; the old one stays open (see above).
  }
  const opened = openSync(real, 'r');
  dbFds.set(real, opened);
  return opened;
}

export function startCheckpointer(o: CheckpointerOptions): Checkpointer {
  const intervalMs = o.intervalMs ?? 100;
  const maxFrames = o.maxFrames ?? 10_000;
  const maxPauseMs = o.maxPauseMs ?? 1000;
  const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'application/javascript' }));
  const worker = new Worker(url);
  // The process exits when its work is done; stop() closes the worker's connection first.
  (worker as Worker & { unref(): void }).unref();
  let waiting: ((r: Reply) => void) | null = null;
  let ready = false;
  let current: Promise<void> | null = null;
  let stopped = false;
  let failed = false;
  let diskFailed = false;
  /** The last pass found the disk full (warned once until a pass succeeds). */
  let full = false;
  /** The worker's connection closing after the disk failed (see fail()). */
  let closing: Promise<Reply> | null = null;
  let lastWrites = -1;
  const stats = { checkpoints: 0, holds: 0, completed: 0 };

  function ask(msg: Record<string, unknown>): Promise<Reply> {
    return new Promise((resolve) => {
      waiting = resolve;
      worker.postMessage(msg);
    });
  }
  worker.onmessage = (e: MessageEvent<Reply>) => {
    const w = waiting;
    waiting = null;
    w?.(e.data);
  };
  worker.onerror = (e) => fail(e.message);

  /**
   * Back to SQLite's own checkpoints on the main connection: slower, never unsafe, unless the
   * disk refused (`disk`: the database file's sync or write failed). Then nothing is checkpointed
   * again and no write is acknowledged any more (o.committer.refuse, as after a failed WAL sync):
   * after a failed writeback Linux reports the error once per open file, and a later fsync
   * returns clean with the pages never written (fsyncgate). A checkpoint that then "succeeded"
   * would let the WAL start over on the only copy of pages the database file never got: acknowledged
   * rows lost, the file malformed (test/store/checkpoint-disk-failure.test.ts, on a real failing
   * disk). Left alone, the WAL keeps every frame since its last restart (nothing reached its end
   * since: the failed pass is the one that would have), and the next start replays them all into
   * the database file (README Decisions: "a failed database sync").
   */
  function fail(why: string, disk = false): void {
    if (failed) return;
    failed = true;
    diskFailed = disk;
    const w = waiting;
    waiting = null;
    w?.({ type: 'error', error: why });
    if (!disk) {
      o.log('error', 'checkpoint worker failed; checkpointing on the main connection', { error: why });
      o.sqlite.exec('PRAGMA wal_autocheckpoint = 1000');
      return;
    }
    o.log('error', 'the database file could not be synced: no write is acknowledged any more; restart once the disk is fixed', { error: why });
    o.committer.refuse(new Error(`the server could not make its commits durable (database file sync failed: ${why})`));
    // No close may checkpoint and then delete (or reuse) the WAL: the last connection to close
    // runs a checkpoint, and the worker's, told of the error already, would see a clean sync. So
    // the worker's closes now, while the server's is open (no checkpoint then), and the server's
    // keeps its WAL file even after a checkpoint of its own that looked clean.
    o.sqlite.fileControl(constants.SQLITE_FCNTL_PERSIST_WAL, 1);
    closing = ask({ type: 'close' });
  }

  async function checkpoint(): Promise<Extract<Reply, { type: 'checkpointed' }> | null> {
    const t0 = traceStart();
    const r = await ask({ type: 'checkpoint' });
    if (r.type === 'error' && r.full) {
      // Disk full while copying pages: write() refused them (no write-back to fail later), the
      // backfill mark did not move, and the next pass copies them again: retry, whatever the writes.
      if (!full) o.log('warn', 'checkpoint: the disk is full; the WAL grows until a pass fits', { error: r.error });
      full = true;
      lastWrites = -1;
      return null;
    }
    if (r.type === 'error') fail(r.error, r.disk);
    if (r.type !== 'checkpointed') return null;
    full = false;
    stats.checkpoints++;
    span('checkpoint.pass', t0, r.log);
    return r;
  }

  /**
   * fdatasync of the database file on the worker's thread: writes go on meanwhile. Speed only, not
   * safety. Written back 1 MiB at a time first: in one fdatasync the kernel sends the ~10 MB as 1-4 MB
   * requests, a virtio disk takes about one such request at a time, and every WAL fdatasync issued
   * meanwhile waited behind all of them (5-10 ms instead of 0.3-1; block trace in bench/RESULTS.md).
   * In steps, a WAL sync waits for one step at most.
   */
  async function flush(): Promise<void> {
    const t0 = traceStart();
    const r = await ask({ type: 'flush', fd: dbFd(o.dbPath) });
    if (r.type === 'error') fail(r.error, r.disk);
    span('checkpoint.flush', t0, 0);
  }

  async function pass(): Promise<void> {
    let r = await checkpoint();
    // Catch up without holding anyone while what is left is large (copying pages is far
    // faster than making them), so the held pass below is short.
    for (let i = 0; r && r.log > maxFrames && r.log - r.checkpointed > maxFrames / 4 && i < 3; i++) r = await checkpoint();
    // Even a pass that reached its end was most likely overtaken by a commit meanwhile (its
    // `log` is the WAL's end when it started), so past the size limit always finish held.
    if (!r || r.log <= maxFrames) return;
    // Write back, unheld, the pages the passes since the last hold copied (see the top): the held
    // pass's database fsync then has only its own few left. (One more unheld pass after it, for
    // the frames committed during this sync, shortened holds further, 3.5 -> 2.5 ms, but not the p99.)
    await flush();
    if (failed) return;
    // Hold new batches so the next pass copies the last frames; the next commit restarts the WAL.
    stats.holds++;
    const held = traceStart();
    o.committer.pause();
    const guard = setTimeout(() => o.committer.resume(), maxPauseMs);
    try {
      const last = await checkpoint();
      if (last && last.checkpointed >= last.log) stats.completed++;
    } finally {
      clearTimeout(guard);
      o.committer.resume();
      span('checkpoint.hold', held, r.log);
    }
  }

  const timer = setInterval(() => {
    if (!ready || current || stopped || failed) return;
    const w = o.writes ? o.writes() : o.committer.stats().writes;
    if (w === lastWrites) return;
    lastWrites = w;
    current = pass()
      .catch((e) => fail(String(e)))
      .finally(() => (current = null));
  }, intervalMs);
  timer.unref?.();

  const opened = ask({ type: 'open', path: o.dbPath }).then((r) => {
    if (r.type === 'error') fail(r.error, r.disk);
    else ready = true;
  });
  o.sqlite.exec('PRAGMA wal_autocheckpoint = 0');

  return {
    ready: () => opened,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await opened;
      await current;
      if (closing !== null) await closing;
      else if (!failed) await ask({ type: 'close' });
      worker.terminate();
      URL.revokeObjectURL(url);
      // The main connection checkpoints on close again, as a plain SQLite connection does (not
      // after the disk refused: see fail()).
      if (!diskFailed) o.sqlite.exec('PRAGMA wal_autocheckpoint = 1000');
    },
    stats: () => ({ ...stats }),
  };
}
