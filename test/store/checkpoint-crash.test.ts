// kill -9 of a process while the checkpointer holds its writes, flushes the database file and lets
// the WAL start over (every few milliseconds here: a 60-frame bound): no acknowledged write is
// lost and the file stays sound, then the next process recovers the WAL and goes on, three times
// over the same file. A real SQLite file, the real worker and fsyncs, a real SIGKILL.
import { Database } from 'bun:sqlite';
import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDb, type TempDb } from '../support/db';

let t: TempDb;
beforeEach(() => {
  t = tempDb();
  // The children open the file themselves (migrations already applied here).
  t.db.close();
});
afterEach(() => t.dispose());

/** Runs a child until it has started `holds` holds past the first, kills it with SIGKILL, returns what it acknowledged. */
async function runAndKill(prefix: string, holds: number): Promise<string[]> {
  const child = spawn(process.execPath, [new URL('../support/checkpoint-crash-child.ts', import.meta.url).pathname, t.path, prefix], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const acked: string[] = [];
  let buf = '';
  let killed = false;
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error(`the child did not reach ${holds} holds (acknowledged ${acked.length})`)), 60_000);
      child.on('exit', () => {
        clearTimeout(guard);
        if (killed) resolve();
        else reject(new Error('the child exited on its own'));
      });
      child.stdout!.on('data', (c: Buffer) => {
        buf += c.toString();
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          const [kind, value] = buf.slice(0, i).split(' ') as [string, string];
          buf = buf.slice(i + 1);
          if (killed) continue;
          if (kind === 'A') acked.push(value);
          // At the start of a hold: the held pass (its WAL and database fsyncs) is under way.
          else if (kind === 'H' && Number(value) >= holds) {
            killed = true;
            child.kill('SIGKILL');
          }
        }
      });
    });
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  return acked;
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
