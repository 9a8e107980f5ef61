// A database file as the release before a migration left it, for that migration's upgrade test:
// every earlier migration applied and recorded as src/store/db.ts does. A fresh temp file per test.
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations.generated';

export interface ReleaseBefore {
  /** The test's database file (openDb(path()) then runs `tag` and the migrations after it). */
  path(): string;
  /** Open it as the release before `tag` left it. */
  open(): Database;
}

/** Call at the top of a test file: each test gets its own file, removed after it. */
export function releaseBefore(tag: string): ReleaseBefore {
  let dir = '';
  let path = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'payforge-migration-'));
    path = join(dir, 'payforge.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return {
    path: () => path,
    open() {
      const s = new Database(path, { create: true, strict: true });
      s.exec('PRAGMA journal_mode = WAL');
      s.exec('CREATE TABLE __migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
      for (const m of MIGRATIONS) {
        if (m.tag >= tag) break;
        for (const stmt of m.sql.split('--> statement-breakpoint')) if (stmt.trim()) s.exec(stmt);
        s.query('INSERT INTO __migrations (tag, applied_at) VALUES (?, ?)').run(m.tag, 1);
      }
      return s;
    },
  };
}
