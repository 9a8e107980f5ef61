// The server's SQLite write path (group commit, the WAL's fdatasync off the event loop, the
// checkpoint worker) on a disk that starts refusing write-backs, in its own process (the parent
// remounts the disk afterwards, which needs every file on it closed):
// `bun disk-failure-child.ts <db> <backing tmpfs> <pass|flush|wal>`.
//   1. rows A1 acknowledged; a reader holds a snapshot; rows A2 acknowledged;
//   2. the disk fills (failing-disk.ts) and a checkpoint pass runs: held back by the reader it
//      copies A1's pages into the database file WITHOUT syncing it (SQLite syncs the file only in
//      a pass that reaches the WAL's end) and moves the WAL's backfill mark past them;
//   3. `pass`: the reader ends and the next pass reaches the end: its sync of the database file
//      fails. `flush`: (WAL bound 16 frames) the checkpointer's own sync before its hold fails.
//      `wal`: (no pass) 100 more rows, one batch: its WAL fdatasync fails. `full`: (a small ext4,
//      no failing write-back) the ext4 itself fills, the next pass's copy is refused (SQLITE_FULL);
//   4. the disk is back (`full`: space freed); rows B are written (3,000: the WAL would pass
//      SQLite's automatic checkpoint twice, were it on); then a clean shutdown.
// Prints one JSON line: the rows acknowledged, the rows refused, the checkpointer's error logs.
import { Database } from 'bun:sqlite';
import { dirname } from 'node:path';
import { startCheckpointer } from '../../src/store/checkpointer';
import { openDb } from '../../src/store/db';
import { createGroupCommitter } from '../../src/store/group-commit';
import { createWalSync } from '../../src/store/wal-sync';
import { createWriteGate } from '../../src/store/write-gate';
import { fillBacking, freeBacking } from './failing-disk';

const [path, backing, mode] = process.argv.slice(2) as [string, string, 'pass' | 'flush' | 'wal' | 'full'];
const db = openDb(path);
const walSync = createWalSync(path);
const errors: string[] = [];
const warnings: string[] = [];
const gc = createGroupCommitter(db.sqlite, 512, walSync, () => {}, createWriteGate());
// A pass runs only when this count moved: each step below moves it once.
let steps = 0;
const cp = startCheckpointer({
  dbPath: path,
  sqlite: db.sqlite,
  committer: gc,
  log: (level, msg) => void (level === 'error' ? errors.push(msg) : level === 'warn' && warnings.push(msg)),
  writes: () => steps,
  intervalMs: 5,
  maxFrames: mode === 'flush' ? 16 : 10_000,
});
await cp.ready();

const insert = db.sqlite.prepare("INSERT INTO accounts (id, name, plan, created_at) VALUES (?, ?, 'free', 1)");
// ~1.5 KB a row: the database file grows by new blocks, the ones a full backing store cannot take.
const name = (id: string) => id.padEnd(1500, 'x');
const acked: string[] = [];
const refused: string[] = [];
async function rows(prefix: string, n: number): Promise<void> {
  for (let from = 0; from < n; from += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, n - from) }, (_, i) => {
        const id = `${prefix}${from + i}`;
        return gc.write(() => insert.run(id, name(id))).then(
          () => acked.push(id),
          () => refused.push(id),
        );
      }),
    );
  }
}
async function until(ok: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`disk-failure-child: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
/** Move the write count and wait until a pass has run (or the checkpointer failed, or warned). */
async function pass(): Promise<void> {
  const before = cp.stats().checkpoints;
  const warned = warnings.length;
  steps++;
  await until(() => cp.stats().checkpoints > before || errors.length > 0 || warnings.length > warned, 'a checkpoint pass');
}

await pass();
await rows('acct_a1_', 200);
const reader = new Database(path, { readonly: true });
reader.exec('BEGIN');
reader.query('SELECT COUNT(*) FROM accounts').get();
await rows('acct_a2_', 200);
if (mode !== 'full') fillBacking(backing);
if (mode === 'pass') {
  await pass();
  reader.exec('COMMIT');
  await pass();
} else if (mode === 'flush') {
  await pass();
  reader.exec('COMMIT');
} else if (mode === 'wal') {
  reader.exec('COMMIT');
  await rows('acct_w_', 100);
}
if (mode === 'pass' || mode === 'flush') await until(() => errors.length > 0, "the checkpointer's failure");
if (mode === 'full') {
  // Not a failing write-back: the ext4 itself is full (a small image), the pass's copy refused.
  reader.exec('COMMIT');
  fillBacking(dirname(path));
  await pass();
  await until(() => warnings.length > 0, "the checkpointer's warning");
  freeBacking(dirname(path));
  // Fewer than the others: on a full small disk SQLite's shared-memory file could not grow.
  await rows('acct_b_', 500);
  await pass();
} else {
  freeBacking(backing);
  await rows('acct_b_', 3000);
}
reader.close();
await cp.stop();
walSync.close();
db.close();
process.stdout.write(`${JSON.stringify({ acked, refused: refused.length, errors, warnings, checkpoints: cp.stats().checkpoints })}\n`);
