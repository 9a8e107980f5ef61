// A writer under constant checkpoint holds, in its own process (for kill -9 tests):
// `bun checkpoint-crash-child.ts <db>`. The server's write path on a real file (group commit,
// the WAL's fdatasync off the event loop, the checkpoint worker), with a WAL bound of 60 frames so
// that a held pass, the flush before it and a WAL restart come every few milliseconds. Prints
// `A <id>` once a write is acknowledged (its promise settled: what a 201 waits for) and
// `H <n>` when the checkpointer has started its n-th hold.
import { createGroupCommitter } from '../../src/store/group-commit';
import { startCheckpointer } from '../../src/store/checkpointer';
import { openDb } from '../../src/store/db';
import { createWalSync } from '../../src/store/wal-sync';

const [path, prefix] = process.argv.slice(2) as [string, string];
const db = openDb(path);
const gc = createGroupCommitter(db.sqlite, 512, createWalSync(path));
const cp = startCheckpointer({ dbPath: path, sqlite: db.sqlite, committer: gc, log: (_l, m) => process.stderr.write(`${m}\n`), intervalMs: 2, maxFrames: 60 });
await cp.ready();
const insert = db.sqlite.prepare("INSERT INTO accounts (id, name, plan, created_at) VALUES (?, ?, 'free', 1)");
// ~3 KB a row: about a page per write, so the WAL passes its bound every few batches.
const big = 'x'.repeat(3000);
let n = 0;
let holds = 0;
const out = (line: string) => process.stdout.write(`${line}\n`);
// 16 writers: batches of several writes, as under HTTP load.
await Promise.all(
  Array.from({ length: 16 }, async () => {
    for (;;) {
      const id = `${prefix}${n++}`;
      await gc.write(() => insert.run(id, big));
      out(`A ${id}`);
      const h = cp.stats().holds;
      if (h !== holds) out(`H ${(holds = h)}`);
    }
  }),
);
