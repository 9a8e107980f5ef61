// The intent writer thread: the entry point of the Worker that intent-writer.ts starts. It owns a
// connection of its own to the server's SQLite file and writes the creates the event loop hands
// it (intent-writes.ts), many per transaction: every create message that arrived while it was
// busy joins the next batch (Bun delivers every pending message before a setImmediate callback).
//
// Durability: this connection commits at synchronous=FULL. In WAL mode SQLite's sqlite3WalFrames
// (wal.c) writes a commit's frames, then, for a commit with WAL_SYNC_TRANSACTIONS (FULL), calls
// sqlite3OsSync on the WAL, and only after that appends the frames to the wal-index and writes its
// header (walIndexWriteHdr), which is what makes the commit visible to other connections; a failed
// sync returns before that. So no reader (the dispatcher thread's claim, a GET on the event loop)
// can see a row of this thread before it is on disk, and a create is answered only after its
// COMMIT returned. The blocking fsync is on this thread, not on the event loop.
//
// Turns: before BEGIN it waits while the checkpointer holds writes, then takes the shared write
// turn (write-gate.ts: after the event loop, if it is waiting), and gives it back after COMMIT.
import { openDb, type Db } from './db';
import { WRITES_REFUSED_CODE } from './disk-refusal';
import { createIntentWrites, failedOutcome, type IntentWrites, type NewIntentOutcome, type NewIntentWrite } from './intent-writes';
import type { FromIntentWriter, ToIntentWriter } from './intent-writer';
import { writeGateOn, type WriteGate } from './write-gate';
import { nameThread } from './thread-name';

declare const self: Worker;

nameThread('pf-writer');

/** Longest wait for the checkpointer's hold or the write turn (then SQLite's own lock decides). */
const TURN_WAIT_MS = 1000;
/** Creates per transaction at most (a backlog is written in several). */
const MAX_BATCH = 512;

const post = (m: FromIntentWriter) => self.postMessage(m);
let conn: Db | null = null;
let writes: IntentWrites | null = null;
let gate: WriteGate | null = null;
let pending: NewIntentWrite[] = [];
let scheduled = false;
/** A COMMIT whose fsync failed: nothing written here may be trusted any more; every create fails. */
let fatal: unknown = null;

function runBatch(batch: NewIntentWrite[]): NewIntentOutcome[] {
  // The server's committer found the disk refusing (its WAL sync, or the database file's sync in
  // the checkpointer): the WAL must not start over, and nothing is acknowledged here either.
  if (fatal === null && gate!.hasFailed()) fatal = Object.assign(new Error('the server could not make its commits durable (a sync failed)'), { code: WRITES_REFUSED_CODE });
  if (fatal !== null) return batch.map(() => failedOutcome(fatal));
  gate!.waitWhileHeld(TURN_WAIT_MS);
  const turn = gate!.enter(TURN_WAIT_MS);
  try {
    return writes!.run(batch);
  } catch (e) {
    // An I/O error at COMMIT is a failed fsync of the WAL (synchronous=FULL): after one the page
    // cache cannot be trusted (as the group committer's failed WAL sync, src/store/commit-sync.ts).
    if (String((e as { code?: unknown }).code ?? '').startsWith('SQLITE_IOERR')) {
      fatal = e;
      gate!.failed();
    }
    return batch.map(() => failedOutcome(e));
  } finally {
    if (turn.taken) gate!.leave();
  }
}

function drain(): void {
  scheduled = false;
  while (pending.length > 0) {
    const batch = pending.length > MAX_BATCH ? pending.splice(0, MAX_BATCH) : pending;
    if (batch === pending) pending = [];
    post({ type: 'done', outcomes: JSON.stringify(runBatch(batch)) });
  }
}

self.onmessage = (e: MessageEvent<ToIntentWriter>) => {
  const m = e.data;
  switch (m.type) {
    case 'init':
      try {
        conn = openDb(m.db);
        conn.sqlite.exec('PRAGMA synchronous = FULL');
        // The server's checkpoint worker owns checkpoints (src/store/checkpointer.ts).
        conn.sqlite.exec('PRAGMA wal_autocheckpoint = 0');
        writes = createIntentWrites(conn.sqlite);
        gate = writeGateOn(m.gate);
      } catch (err) {
        post({ type: 'failed', error: String(err) });
        return;
      }
      post({ type: 'ready' });
      return;
    case 'batch':
      // After stop the connection is closed (its prepared statements would still write through
      // it): fail these, unwritten. The event loop sends nothing after stop; this is a guard.
      if (conn === null) {
        post({ type: 'done', outcomes: JSON.stringify((JSON.parse(m.writes) as unknown[]).map(() => failedOutcome('the intent writer has stopped'))) });
        return;
      }
      for (const w of JSON.parse(m.writes) as NewIntentWrite[]) pending.push(w);
      if (!scheduled) {
        scheduled = true;
        setImmediate(drain);
      }
      return;
    case 'stop':
      drain();
      conn?.close();
      conn = null;
      post({ type: 'stopped' });
      return;
  }
};
