// serve --bootstrap on an empty database, from several instances at the same moment: exactly one
// `default` account and one test key, whichever instance wins, on both engines. Each "instance"
// is a Store of its own (its own pool / connection) on one real database with the real migrations.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bootstrapIfEmpty } from '../../src/bootstrap';
import { openStore, type Store } from '../../src/store/store';
import { ENGINES, STORE_STATES } from '../support/engines';
import { freshDatabaseUrl } from '../support/postgres';

const INSTANCES = 8;
const ROUNDS = 3;

describe.each(ENGINES)('bootstrapIfEmpty on %s', (engine) => {
  it(`${INSTANCES} instances bootstrapping one empty database at once create one default account`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dir = engine === 'sqlite' ? mkdtempSync(join(tmpdir(), 'payforge-boot-')) : null;
      const db = dir ? join(dir, 'payforge.db') : await freshDatabaseUrl();
      const stores: Store[] = [];
      try {
        // Opened (and migrated) one after the other, each connection made before the race starts.
        for (let n = 0; n < INSTANCES; n++) {
          const s = await openStore({ db, cluster: { poolSize: 2 } }, { states: STORE_STATES, log: () => {}, oneShot: true });
          stores.push(s);
          await s.ping();
        }
        const results = await Promise.all(stores.map((s) => bootstrapIfEmpty(s)));
        const winners = results.filter((r) => r !== null);
        expect(winners, `round ${round}`).toHaveLength(1);
        const accounts = await stores[0]!.repos.accounts.list();
        expect(accounts.map((a) => a.name)).toEqual(['default']);
        expect(accounts[0]!.id).toBe(winners[0]!.accountId);
        expect((await stores[0]!.repos.apiKeys.list(accounts[0]!.id)).length).toBe(1);
        // Once there is an account, bootstrap creates nothing.
        expect(await bootstrapIfEmpty(stores[1]!)).toBeNull();
      } finally {
        for (const s of stores) await s.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
