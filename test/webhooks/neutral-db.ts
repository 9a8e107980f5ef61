// A fresh database of the store under test (PAYFORGE_TEST_STORE), for the webhook tests that run on
// both engines. Apart from factory.ts: test-store pulls in the PostgreSQL harness (its afterAll
// needs a vitest suite), and bench/webhooks imports factory.ts outside vitest.
import type { StoreRepos } from '../../src/store/store';
import { adminStore, freshTestDatabase } from '../support/test-store';

/** A fresh database of the store under test (PAYFORGE_TEST_STORE), reached through its Store. */
export interface NeutralDb {
  /** The database's `db` (a SQLite path or a postgres:// URL), for raw SQL (test/support/raw-sql.ts). */
  db: string;
  repos: StoreRepos;
  dispose(): Promise<void>;
}

export async function neutralDb(): Promise<NeutralDb> {
  const fresh = await freshTestDatabase();
  const store = await adminStore(fresh.db);
  return {
    db: fresh.db,
    repos: store.repos,
    dispose: async () => {
      await store.close();
      fresh.dispose();
    },
  };
}

/** An account on a NeutralDb (either store). */
export const accountIn = async (db: NeutralDb, plan: 'free' | 'pro' = 'pro'): Promise<string> => (await db.repos.accounts.create({ name: 'test', plan })).id;
