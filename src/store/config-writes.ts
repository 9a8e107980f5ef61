// The count of writes to API keys, accounts and webhook endpoints (migration 0018's triggers bump
// it for every connection's write: this server's, a CLI command's, another process's). What a
// connection remembers of those tables (api-key-lookup.ts: active keys; outbox.ts: endpoint URLs)
// is kept while the count stays where it was when remembered, and forgotten when it moves.
//
// Inside a group-commit batch the count is read once, by the batch's first asker: the batch holds
// the write lock from its BEGIN IMMEDIATE, so no other connection's write can land until its
// COMMIT. A write to those tables through this same connection inside a batch is not seen that
// way; the code that writes them forgets what it changed at once (forgetKeys, forgetEndpoints).
// Outside a batch every call reads the count.
import type { Database, Statement } from 'bun:sqlite';

interface Mark {
  count: Statement<{ n: number }, []>;
  inBatch: boolean;
  /** The count read in the open batch, or null before its first ask. */
  batchCount: number | null;
}

const marks = new WeakMap<Database, Mark>();

function markOf(sqlite: Database): Mark {
  let m = marks.get(sqlite);
  if (!m) {
    m = { count: sqlite.prepare<{ n: number }, []>('SELECT n FROM config_writes WHERE k = 0'), inBatch: false, batchCount: null };
    marks.set(sqlite, m);
  }
  return m;
}

/** The count of key, account and endpoint writes now (read once per open batch). */
export function configWrites(sqlite: Database): number {
  const m = markOf(sqlite);
  if (!m.inBatch) return m.count.get()!.n;
  return (m.batchCount ??= m.count.get()!.n);
}

/** The group committer's hooks: a batch began (right after BEGIN IMMEDIATE) / ended (committed or rolled back). */
export function configBatchWatch(sqlite: Database): { began(): void; ended(): void } {
  const m = markOf(sqlite);
  return {
    began() {
      m.inBatch = true;
      m.batchCount = null;
    },
    ended() {
      m.inBatch = false;
      m.batchCount = null;
    },
  };
}
