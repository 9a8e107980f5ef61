// A writer whose group-commit batches split at a tiny time budget, under constant checkpoint
// holds, in its own process (for kill -9 tests): `bun group-commit-split-child.ts <db> <prefix>`.
// The server's write path on a real file (group commit with a budget, the WAL's fdatasync off the
// event loop, the checkpoint worker with a 60-frame bound). 24 writers each queue a chain of 6
// writes at once (no await between: a create and its moves), each write checking inside its
// transaction that the one before it in the chain committed (or it throws: out of order); every
// 7th chain has, in its middle, a write without a savepoint that fails after writing (its batch
// rolled back, the writes before it run again first). Prints `A <id>` once a write is
// acknowledged, `F <id>` for a failing write's refusal, `E <message>` for anything unexpected,
// `H <n>` at the checkpointer's n-th hold.
import { createGroupCommitter } from '../../src/store/group-commit';
import { startCheckpointer } from '../../src/store/checkpointer';
import { openDb } from '../../src/store/db';
import { createWalSync } from '../../src/store/wal-sync';

const [path, prefix] = process.argv.slice(2) as [string, string];
const db = openDb(path);
// 0.2 ms: a batch takes a few dozen writes (of 512), so chains span batches and turns.
const gc = createGroupCommitter(db.sqlite, 512, createWalSync(path), () => {}, null, null, (e) => e, 0.2);
const cp = startCheckpointer({ dbPath: path, sqlite: db.sqlite, committer: gc, log: (_l, m) => process.stderr.write(`${m}\n`), intervalMs: 2, maxFrames: 60 });
await cp.ready();
const insert = db.sqlite.prepare("INSERT INTO accounts (id, name, plan, created_at) VALUES (?, ?, 'free', 1)");
const exists = db.sqlite.prepare('SELECT 1 AS x FROM accounts WHERE id = ?');
const big = 'x'.repeat(1500);
const out = (line: string): void => void process.stdout.write(`${line}\n`);
let holds = 0;
let chains = 0;
let failures = 0;
const CHAIN = 6;

await Promise.all(
  Array.from({ length: 24 }, async () => {
    for (;;) {
      const k = `${prefix}${chains++}`;
      const writes: Promise<void>[] = [];
      for (let j = 0; j < CHAIN; j++) {
        writes.push(
          gc.write(() => {
            if (j > 0 && exists.get(`${k}:${j - 1}`) === null) throw new Error(`out of order: ${k}:${j} ran before ${k}:${j - 1} committed`);
            insert.run(`${k}:${j}`, big);
          }).then(
            () => out(`A ${k}:${j}`),
            (e) => out(`E ${String(e)}`),
          ),
        );
        // Every 7th chain, in its middle: a write without a savepoint that fails after its INSERT.
        if (j === 2 && chains % 7 === 0) {
          const f = `${prefix}f${failures++}`;
          writes.push(
            gc.write(() => {
              insert.run(f, big);
              throw new Error('planned');
            }, undefined, undefined, { savepoint: false }).then(
              () => out(`E ${f} acknowledged though it threw`),
              () => out(`F ${f}`),
            ),
          );
        }
      }
      await Promise.all(writes);
      const h = cp.stats().holds;
      if (h !== holds) out(`H ${(holds = h)}`);
    }
  }),
);
