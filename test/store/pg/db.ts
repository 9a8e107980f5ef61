// A fresh PostgreSQL database with the real migrations (migratePg) on this test file's cluster
// (test/support/postgres.ts), for the PG repository tests.
import { SQL } from 'bun';
import { migratePg } from '../../../src/store/pg/migrate';
import type { Pg } from '../../../src/store/pg/sql';
import { freshDatabaseUrl } from '../../support/postgres';

export interface PgTestDb {
  sql: SQL;
  url: string;
  dispose(): Promise<void>;
}

export async function pgTestDb(): Promise<PgTestDb> {
  const url = await freshDatabaseUrl();
  const sql = new SQL({ url, max: 4 });
  await migratePg(sql);
  return { sql, url, dispose: () => sql.close() };
}

/** Until a session of this database waits on a lock (polled with a deadline). */
export async function waitingOnLock(sql: Pg): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    if (n > 0) return;
    if (Date.now() > deadline) throw new Error('no session ever waited on a lock');
    await Bun.sleep(10);
  }
}

/** Poll `read` until `ok`, with a deadline (never a fixed sleep for correctness). */
export async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`never: ${JSON.stringify(v)}`);
    await Bun.sleep(5);
  }
}
