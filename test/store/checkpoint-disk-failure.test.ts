// A failed sync of the DATABASE file (the checkpointer's), on a real failing disk (failing-disk.ts:
// an ext4 on a zram device whose write-backs then fail): from then on no write is acknowledged, as
// after a failed WAL sync (also here, on the same disk), and every row acknowledged before it is
// still there after the disk is back and the server restarted. Before, the checkpointer fell back to SQLite's own checkpoints on
// the main connection: the next fsync of the database file reported clean (Linux reports a failed
// write-back once), the WAL started over on pages the file never got, and the database read back
// malformed, with every later write acknowledged.
import { Database } from 'bun:sqlite';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FailingDisk, failingDisk } from '../support/failing-disk';

let disk: FailingDisk | null = null;
afterEach(() => {
  disk?.dispose();
  disk = null;
});

/** The child's run (test/support/disk-failure-child.ts) on a fresh disk, then its database read back after a remount. */
function runChild(mode: 'pass' | 'flush' | 'wal' | 'full') {
  const d = (disk = failingDisk(mode === 'full' ? { imageMb: 12 } : {}));
  const path = join(d.dir, 'payforge.db');
  const child = spawnSync(process.execPath, [new URL('../support/disk-failure-child.ts', import.meta.url).pathname, path, d.backing, mode], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(child.status, child.stderr).toBe(0);
  const out = JSON.parse(child.stdout.trim().split('\n').pop()!) as { acked: string[]; refused: number; errors: string[]; warnings: string[] };
  // The server restarts on the disk as it really is (the page cache dropped).
  d.remount();
  const db = new Database(path);
  try {
    const integrity = (db.query('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check;
    const ids = new Set((db.query('SELECT id FROM accounts').all() as Array<{ id: string }>).map((r) => r.id));
    return { out, integrity, ids };
  } finally {
    db.close();
  }
}

const NAMES = {
  pass: "the database file's: a checkpoint pass's own sync",
  flush: "the database file's: the checkpointer's sync before a hold",
  wal: "the WAL's (a batch's fdatasync; its 100 writes committed, never acknowledged)",
};

describe('a failed sync on a real failing disk', () => {
  for (const mode of ['pass', 'flush', 'wal'] as const) {
    it(`${NAMES[mode]}: nothing acknowledged after it, everything acknowledged before it survives a restart`, () => {
      const { out, integrity, ids } = runChild(mode);
      // A1 and A2 acknowledged before the failure, nothing after it.
      expect(out.acked.length).toBe(400);
      expect(integrity).toBe('ok');
      expect(out.acked.filter((id) => !ids.has(id))).toEqual([]);
      expect([...ids].filter((id) => id.startsWith('acct_b_'))).toEqual([]);
      // None of the 3,000 after it (nor, with the WAL's, the batch whose sync failed), and why.
      if (mode === 'wal') {
        expect(out.refused).toBe(3100);
        expect(out.errors).toEqual([]);
      } else {
        expect(out.refused).toBe(3000);
        expect(out.errors).toEqual([expect.stringContaining('the database file could not be synced')]);
      }
    });
  }

  it('a full disk is no failed sync: the pass is refused (SQLITE_FULL), retried, and writes go on once there is room', () => {
    const { out, integrity, ids } = runChild('full');
    expect(out.warnings).toEqual([expect.stringContaining('the disk is full')]);
    expect(out.errors).toEqual([]);
    expect(out.refused).toBe(0);
    expect(out.acked.length).toBe(900);
    expect(integrity).toBe('ok');
    expect(out.acked.filter((id) => !ids.has(id))).toEqual([]);
  });
});
