// Opening the database: pragmas for durability (WAL + synchronous=FULL) and the migrations
// embedded in the build. The only place that creates a bun:sqlite Database.
import { Database } from 'bun:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite';
import { MIGRATIONS } from './migrations.generated';
import * as schema from './schema';

export type Orm = BunSQLiteDatabase<typeof schema>;

export interface Db {
  sqlite: Database;
  orm: Orm;
  close(): void;
  /**
   * null when everything committed on this connection is on disk, else a promise that settles
   * once it is. The server's group committer syncs the WAL after COMMIT, off the event loop
   * (src/store/wal-sync.ts) and sets this; whatever shows committed rows to the outside waits on it.
   */
  durable: () => Promise<void> | null;
}

export function openDb(path: string): Db {
  // A postgres:// URL is never a file name (it would become a folder named `postgres:`).
  if (/^postgres(ql)?:\/\//i.test(path)) throw new Error(`openDb opens SQLite files only; ${path.split('@').pop()} is PostgreSQL (src/store/pg)`);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  // WAL lets the CLI work on the file while a server runs; FULL makes every commit durable.
  sqlite.exec('PRAGMA journal_mode = WAL');
  sqlite.exec('PRAGMA synchronous = FULL');
  sqlite.exec('PRAGMA busy_timeout = 5000');
  sqlite.exec('PRAGMA foreign_keys = ON');
  migrate(sqlite);
  // Statement journals (the group committer's savepoint per write, multi-row UPDATEs) in memory:
  // with the default they are temp files, ~40 pwrite syscalls per create and half its SQL CPU.
  // They only undo a statement or savepoint inside an open transaction; crash recovery is the
  // WAL's, so durability is unchanged. Set after the migrations, whose index builds may sort
  // every row (those keep spilling to temp files); the server's own sorts are bounded lists.
  sqlite.exec('PRAGMA temp_store = MEMORY');
  const orm = drizzle({ client: sqlite, schema });
  return { sqlite, orm, close: () => sqlite.close(), durable: () => null };
}

/** The tags of the migrations this database has applied, in order. */
export function appliedMigrations(db: Db): string[] {
  return db.sqlite.query<{ tag: string }, []>('SELECT tag FROM __migrations ORDER BY tag').all().map((r) => r.tag);
}

/** Apply embedded migrations not yet recorded, each in its own transaction, in order. */
export function migrate(sqlite: Database): void {
  sqlite.exec(
    'CREATE TABLE IF NOT EXISTS __migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)',
  );
  const applied = new Set(
    (sqlite.query('SELECT tag FROM __migrations').all() as Array<{ tag: string }>).map((r) => r.tag),
  );
  refuseNewerSchema(applied, MIGRATIONS);
  for (const m of MIGRATIONS) {
    if (applied.has(m.tag)) continue;
    sqlite.transaction(() => {
      for (const stmt of m.sql.split('--> statement-breakpoint')) {
        if (stmt.trim()) sqlite.exec(stmt);
      }
      sqlite.query('INSERT INTO __migrations (tag, applied_at) VALUES (?, ?)').run(m.tag, Date.now());
    }).immediate();
  }
}

/**
 * A database a newer PayForge migrated (a tag this build does not embed) is refused before
 * anything is read or written: an older build on a newer schema misreads rows or fails on obscure
 * SQL errors, and a downgrade is not supported (README Operations, "Upgrading"). Both engines.
 */
export function refuseNewerSchema(applied: Iterable<string>, known: ReadonlyArray<{ tag: string }>): void {
  const tags = new Set(known.map((m) => m.tag));
  const unknown = [...applied].filter((t) => !tags.has(t)).sort();
  if (unknown.length === 0) return;
  throw new Error(
    `the database was migrated by a newer PayForge (migration ${unknown.join(', ')} is unknown to this one); ` +
      'run that version or a later one, or restore the backup taken before the upgrade',
  );
}
