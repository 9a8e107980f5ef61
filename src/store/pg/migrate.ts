// Applies the PostgreSQL migrations embedded in the build (drizzle-pg/ via
// scripts/embed-migrations.ts), recording applied tags in __migrations as SQLite does.
import type { SQL } from 'bun';
import { refuseNewerSchema } from '../db';
import { PG_MIGRATIONS } from './migrations.generated';

/**
 * Any key shared by every PayForge instance: the advisory lock that makes instances booting
 * together take turns (the first applies, the others then find every tag recorded).
 */
const MIGRATION_LOCK = 0x5061_7946_6f72_6765n; // "PayForge"

/**
 * Apply the embedded migrations this database has not recorded, in order, in ONE transaction
 * under a transaction-level advisory lock: PostgreSQL's DDL is transactional, so a failure
 * leaves the database as it was, and the lock goes with the transaction even if the process dies.
 * Returns the tags it applied.
 */
export async function migratePg(sql: SQL): Promise<string[]> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK.toString()}::bigint)`;
    await tx`CREATE TABLE IF NOT EXISTS __migrations (tag TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`;
    const rows: Array<{ tag: string }> = await tx`SELECT tag FROM __migrations`;
    const applied = new Set(rows.map((r) => r.tag));
    refuseNewerSchema(applied, PG_MIGRATIONS);
    const done: string[] = [];
    for (const m of PG_MIGRATIONS) {
      if (applied.has(m.tag)) continue;
      for (const stmt of m.sql.split('--> statement-breakpoint')) {
        if (stmt.trim()) await tx.unsafe(stmt);
      }
      await tx`INSERT INTO __migrations (tag, applied_at) VALUES (${m.tag}, ${Date.now()})`;
      done.push(m.tag);
    }
    return done;
  });
}

/** The tags of the migrations this database has applied, in order. */
export async function appliedPgMigrations(sql: SQL): Promise<string[]> {
  const rows: Array<{ tag: string }> = await sql`SELECT tag FROM __migrations ORDER BY tag`;
  return rows.map((r) => r.tag);
}
