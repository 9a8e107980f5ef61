// Store tests that run on both engines: the same cases against a fresh SQLite file and a fresh
// PostgreSQL database, each with the real migrations, through the engine-neutral Store (the
// repositories every caller above src/store sees; tests always await, so SQLite's plain values
// and PostgreSQL's promises read alike).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statesTagged } from '../../machines/judge';
import { openStore, type Store } from '../../src/store/store';
import { freshDatabaseUrl } from './postgres';

export const ENGINES = ['sqlite', 'postgres'] as const;
export type Engine = (typeof ENGINES)[number];

export interface EngineStore {
  store: Store;
  dispose(): Promise<void>;
}

export const STORE_STATES = { live: statesTagged('live'), watching: statesTagged('watching') };

/** A fresh, migrated database of `engine` and the Store on it. */
export async function engineStore(engine: Engine): Promise<EngineStore> {
  const dir = engine === 'sqlite' ? mkdtempSync(join(tmpdir(), 'payforge-store-')) : null;
  const db = dir ? join(dir, 'payforge.db') : await freshDatabaseUrl();
  const store = await openStore({ db, cluster: { poolSize: 4 } }, { states: STORE_STATES, log: () => {}, oneShot: true });
  return {
    store,
    async dispose() {
      await store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
