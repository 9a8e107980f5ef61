// Which store the shared test support runs on: PAYFORGE_TEST_STORE=postgres gives every test
// server and core a fresh PostgreSQL database (test/support/postgres.ts), anything else a fresh
// SQLite file in a temp folder, so the same API and lifecycle tests run against both engines.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statesTagged } from '../../machines/judge';
import { openStore, type Store } from '../../src/store/store';
import { freshDatabaseUrl } from './postgres';

export type TestEngine = 'sqlite' | 'postgres';

export function testEngine(): TestEngine {
  const v = process.env.PAYFORGE_TEST_STORE ?? 'sqlite';
  if (v !== 'sqlite' && v !== 'postgres') throw new Error(`PAYFORGE_TEST_STORE=${v}: expected sqlite or postgres`);
  return v;
}

export interface TestDatabase {
  /** The config's `db`: a SQLite file path or a postgres:// URL. */
  db: string;
  /** A temp folder for the test's other files (the SQLite file lives in it). */
  dir: string;
  /** Remove the folder (a PostgreSQL database goes with its cluster at the file's end). */
  dispose(): void;
}

/** A fresh, empty database on the engine under test. */
export async function freshTestDatabase(): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'payforge-test-'));
  const db = testEngine() === 'postgres' ? await freshDatabaseUrl() : join(dir, 'payforge.db');
  return { db, dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export const STORE_STATES = { live: statesTagged('live'), watching: statesTagged('watching') };

/**
 * A second handle on a test's database, as an operator's CLI command beside the server has one
 * (SQLite: its own connection; PostgreSQL: a small pool): for setup and for reading rows.
 */
export function adminStore(db: string): Promise<Store> {
  return openStore({ db }, { states: STORE_STATES, log: () => {}, oneShot: true });
}
