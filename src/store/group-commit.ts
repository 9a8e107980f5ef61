// Group commit: the synchronous write functions of concurrent requests run in ONE SQLite
// transaction (one fsync), each inside its own savepoint so one failure rolls back only itself.
// Callers await the promise, which settles only after COMMIT: nothing is acknowledged early.
// Never await inside a write function: bun:sqlite transactions are synchronous.
import type { Database } from 'bun:sqlite';

interface Pending {
  fn: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  /** Called when the whole batch failed to commit after fn succeeded (undo in-memory effects). */
  onAbort?: () => void;
}

export interface GroupCommitter {
  /** Queue a synchronous write; resolves with its return value once durably committed. */
  write<T>(fn: () => T, onAbort?: () => void): Promise<T>;
  /** Run a write now, outside the batch (CLI, boot): its own transaction. */
  writeNow<T>(fn: () => T): T;
  /** Settle everything queued (used at shutdown). */
  flush(): void;
  stats(): { batches: number; writes: number };
}

export function createGroupCommitter(sqlite: Database, maxBatch = 512): GroupCommitter {
  let queue: Pending[] = [];
  let scheduled = false;
  let batches = 0;
  let writes = 0;
  const begin = sqlite.prepare('BEGIN IMMEDIATE');
  const commit = sqlite.prepare('COMMIT');
  const rollback = sqlite.prepare('ROLLBACK');
  const savepoint = sqlite.prepare('SAVEPOINT w');
  const release = sqlite.prepare('RELEASE w');
  const rollbackTo = sqlite.prepare('ROLLBACK TO w');

  function flush(): void {
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.length > maxBatch ? queue.splice(0, maxBatch) : queue;
      if (batch === queue) queue = [];
      runBatch(batch);
    }
  }

  function runBatch(batch: Pending[]): void {
    const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
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
    batch.forEach((p, i) => {
      const r = results[i]!;
      if (r.ok) p.resolve(r.value);
      else p.reject(r.error);
    });
  }

  return {
    write<T>(fn: () => T, onAbort?: () => void): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject, onAbort });
        if (!scheduled) {
          scheduled = true;
          // setImmediate lets every request that is ready in this turn of the loop join the batch.
          setImmediate(flush);
        }
      });
    },
    writeNow<T>(fn: () => T): T {
      return sqlite.transaction(fn).immediate();
    },
    flush,
    stats: () => ({ batches, writes }),
  };
}
