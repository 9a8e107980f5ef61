// SQLite stores on real files for the tests that open their own (one per test, or a second
// connection on the same file standing for another process): each closed and its folder removed
// after the test, newest first, so a store closes before its folder goes. Call at the top of the
// test file (it registers the afterEach).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openSqliteStore, type SqliteStore, type StoreOptions } from '../../src/store/store';
import { STORE_STATES } from './engines';

export interface StoreFiles {
  /** A database path in a fresh folder (`payforge-<prefix>-…`), removed after the test. */
  path(): string;
  /** openSqliteStore with the machine's states and no log, closed after the test. */
  open(path: string, opts?: Omit<Partial<StoreOptions>, 'states' | 'log'>): SqliteStore;
  /** Run `step` after the test (before what was registered earlier). */
  later(step: () => Promise<void> | void): void;
}

export function storeFiles(prefix: string): StoreFiles {
  const steps: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of steps.splice(0).reverse()) await step();
  });
  return {
    path() {
      const dir = mkdtempSync(join(tmpdir(), `payforge-${prefix}-`));
      steps.push(() => rmSync(dir, { recursive: true, force: true }));
      return join(dir, 'payforge.db');
    },
    open(path, opts = {}) {
      const store = openSqliteStore(path, { states: STORE_STATES, log: () => {}, ...opts });
      steps.push(() => store.close());
      return store;
    },
    later: (step) => void steps.push(step),
  };
}
