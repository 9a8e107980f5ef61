// Writes the operator and the API make outside any write function (a dashboard revoke, a key's
// creation, a plan change, an endpoint set) while another write's transaction is open and waiting
// on I/O. On SQLite that transaction is the group committer's batch on the server's one
// connection: a statement run on that connection then runs inside the batch, inside the savepoint
// of the write under way, and was rolled back with it after its caller had been told it was done
// (review4). Each must commit on its own, whatever happens to the other write. Both engines.
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/store/api-keys';
import { WriteAwaitedIoError } from '../../src/store/group-commit';
import { openStore, type Store } from '../../src/store/store';
import { freshTestDatabase, STORE_STATES, testEngine, type TestDatabase } from '../support/test-store';

let db: TestDatabase;
const opened: Store[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  db?.dispose();
});

async function open(path: string, oneShot = false): Promise<Store> {
  const s = await openStore({ db: path }, { states: STORE_STATES, log: () => {}, oneShot });
  opened.push(s);
  return s;
}

describe('writes outside the write functions, while another write waits on I/O inside its transaction', () => {
  it('a revoke, a key created, a plan change and an endpoint set made then all commit and count at once', async () => {
    db = await freshTestDatabase();
    const server = await open(db.db);
    const account = await server.repos.accounts.create({ name: 'shop' });
    const old = await server.repos.apiKeys.create({ accountId: account.id, mode: 'test' });
    // Remembered by the server's key look-up (a cache on SQLite) before the revoke.
    expect(await server.repos.apiKeys.findActiveByHash(hashApiKey(old.key))).not.toBeNull();

    let outside: Promise<unknown[]> | null = null;
    const slow = server.transact(async (tx) => {
      // The next turn of the event loop, while this write still waits below: what a dashboard
      // request that arrives then does (src/dashboard/index.ts: repos.apiKeys.revoke / create).
      // (Asked for before this write's first await: SQLite's committer asks for its own turn marker right after.)
      setImmediate(() => {
        outside = Promise.all([
          server.repos.apiKeys.revoke(old.id),
          server.repos.apiKeys.create({ accountId: account.id, mode: 'live' }),
          server.repos.accounts.setPlan(account.id, 'pro'),
          server.repos.endpoints.saveUrl({ accountId: account.id, mode: 'test', url: 'https://example.com/hook', now: Date.now(), newSecret: () => 'whsec_x' }),
        ]);
      });
      await tx.accounts.create({ name: 'slow writer' });
      // I/O inside a write: SQLite's committer rolls this write back once the loop turns.
      await new Promise((r) => setTimeout(r, 30));
    });
    if (testEngine() === 'sqlite') await expect(slow).rejects.toBeInstanceOf(WriteAwaitedIoError);
    else await slow;
    expect(outside).not.toBeNull();
    const [, created] = (await outside!) as [unknown, { id: string; key: string }];

    // Committed: another connection (an operator's CLI) reads each of them.
    const cli = await open(db.db, true);
    expect((await cli.repos.apiKeys.list(account.id)).map((k) => [k.id, k.revokedAt !== null])).toEqual(
      expect.arrayContaining([
        [old.id, true],
        [created.id, false],
      ]),
    );
    expect((await cli.repos.accounts.get(account.id))?.plan).toBe('pro');
    expect((await cli.repos.endpoints.get(account.id, 'test'))?.url).toBe('https://example.com/hook');
    // And the server's own look-up answers from what committed: the old key is gone, the new one works on the pro plan.
    expect(await server.repos.apiKeys.findActiveByHash(hashApiKey(old.key))).toBeNull();
    expect(await server.repos.apiKeys.findActiveByHash(hashApiKey(created.key))).toMatchObject({ accountId: account.id, mode: 'live', plan: 'pro' });
  });
});
