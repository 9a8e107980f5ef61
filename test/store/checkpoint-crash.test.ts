// kill -9 of a process while the checkpointer holds its writes, flushes the database file and lets
// the WAL start over (every few milliseconds here: a 60-frame bound): no acknowledged write is
// lost and the file stays sound, then the next process recovers the WAL and goes on, three times
// over the same file. A real SQLite file, the real worker and fsyncs, a real SIGKILL.
import { Database } from 'bun:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDb, type TempDb } from '../support/db';
import { runUntilHolds } from '../support/kill-at-hold';

let t: TempDb;
beforeEach(() => {
  t = tempDb();
  // The children open the file themselves (migrations already applied here).
  t.db.close();
});
afterEach(() => t.dispose());

/** Runs a child until it has started `holds` holds past the first, kills it with SIGKILL, returns what it acknowledged. */
async function runAndKill(prefix: string, holds: number): Promise<string[]> {
  const said = await runUntilHolds(new URL('../support/checkpoint-crash-child.ts', import.meta.url), [t.path, prefix], holds);
  return said.get('A') ?? [];
}

describe('kill -9 around checkpoint holds', () => {
  it('loses no acknowledged write, three processes in turn on one file', { timeout: 240_000 }, async () => {
    const all: string[] = [];
    for (const [round, holds] of [[0, 3], [1, 8], [2, 15]] as const) {
      const acked = await runAndKill(`r${round}-`, holds);
      expect(acked.length).toBeGreaterThan(0);
      all.push(...acked);
      const db = new Database(t.path);
      try {
        expect(db.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
        const stored = new Set((db.query('SELECT id FROM accounts').all() as Array<{ id: string }>).map((r) => r.id));
        expect(all.filter((id) => !stored.has(id))).toEqual([]);
      } finally {
        db.close();
      }
    }
  });
});
