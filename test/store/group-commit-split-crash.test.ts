// kill -9 of a process whose group-commit batches split at their time budget (c92883c: a batch
// closes once its writes ran its budget, the rest first in the queue, a turn of the event loop
// between batches) while the checkpointer holds, flushes and restarts the WAL every few
// milliseconds: no acknowledged write is lost, a chain of writes queued together (each depending
// on the one before) commits in its order with no gap, no write commits twice, and a write that
// failed without a savepoint (its batch rolled back, the others run again) never commits. Real
// SQLite file with the real migrations, the real worker and fsyncs, a real SIGKILL, three processes
// in turn on one file.
import { Database } from 'bun:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDb, type TempDb } from '../support/db';
import { runUntilHolds } from '../support/kill-at-hold';

let t: TempDb;
beforeEach(() => {
  t = tempDb();
  t.db.close();
});
afterEach(() => t.dispose());

interface Run {
  acked: string[];
  refused: string[];
  errors: string[];
}

async function runAndKill(prefix: string, holds: number): Promise<Run> {
  const said = await runUntilHolds(new URL('../support/group-commit-split-child.ts', import.meta.url), [t.path, prefix], holds);
  return { acked: said.get('A') ?? [], refused: said.get('F') ?? [], errors: said.get('E') ?? [] };
}

describe('kill -9 while batches split at their budget', () => {
  it('loses no acknowledged write, keeps each chain in order without gaps, commits no refused write', { timeout: 240_000 }, async () => {
    const acked: string[] = [];
    const refused: string[] = [];
    for (const [round, holds] of [[0, 20], [1, 60], [2, 120]] as const) {
      const run = await runAndKill(`r${round}-`, holds);
      expect(run.errors).toEqual([]);
      expect(run.acked.length).toBeGreaterThan(0);
      expect(run.refused.length).toBeGreaterThan(0);
      acked.push(...run.acked);
      refused.push(...run.refused);
      const db = new Database(t.path);
      try {
        expect(db.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
        const stored = new Set((db.query("SELECT id FROM accounts WHERE id LIKE 'r%'").all() as Array<{ id: string }>).map((r) => r.id));
        expect(acked.filter((id) => !stored.has(id))).toEqual([]);
        expect(refused.filter((id) => stored.has(id))).toEqual([]);
        // Every chain stored is a prefix 0..m of its writes: none committed before the one it follows.
        const chains = new Map<string, number[]>();
        for (const id of stored) {
          const at = id.lastIndexOf(':');
          if (at < 0) continue;
          const js = chains.get(id.slice(0, at)) ?? [];
          js.push(Number(id.slice(at + 1)));
          chains.set(id.slice(0, at), js);
        }
        const gaps = [...chains].filter(([, js]) => js.sort((a, b) => a - b).some((j, i) => j !== i));
        expect(gaps).toEqual([]);
      } finally {
        db.close();
      }
    }
  });
});
