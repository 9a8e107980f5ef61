// The periodic live scan on SQLite reads the rows again only when another connection (a CLI
// command, another process) has written intents since its last look: this process follows every
// row it commits as it commits it, so a scan after only its own writes has nothing to learn (and
// at 60k live intents it held the event loop for ~0.2 s every 5 s). Commits of other connections
// that write no intent (the webhook dispatcher thread's, all the time under load) do not count.
// A real SQLite file with the real migrations, WAL sync and checkpoint worker; the other writer
// is a second connection.
import { describe, expect, it } from 'vitest';
import { createRuntime, type Runtime, type Tx } from '../../src/actors/runtime';
import type { SqliteStore } from '../../src/store/store';
import { until } from '../support/core';
import { storedIntent } from '../support/db';
import { storeFiles } from '../support/store-files';

const stores = storeFiles('scan-skip');
const files = stores.path;
const open = (path: string, oneShot = false): SqliteStore => stores.open(path, { oneShot });

function fresh() {
  const now = Date.now();
  const { state: _s, snapshot: _n, machineVersion: _m, ...fields } = storedIntent({ createdAt: now, updatedAt: now, expiresAt: now + 600_000 });
  return fields;
}

describe('the periodic live scan on SQLite', () => {
  it('changedElsewhere: true first, false after this connection\'s own commits, true after another connection\'s', async () => {
    const path = files();
    const store = open(path);
    expect(store.changedElsewhere()).toBe(true);
    expect(store.changedElsewhere()).toBe(false);
    await store.transact(async (tx) => tx.intents.insert(storedIntent()));
    expect(store.changedElsewhere()).toBe(false);

    const cli = open(path, true);
    await cli.transact(async (tx) => tx.intents.insert(storedIntent()));
    expect(store.changedElsewhere()).toBe(true);
    expect(store.changedElsewhere()).toBe(false);
  });

  it('changedElsewhere: another connection\'s commits without an intent do not count; its intent updates do', async () => {
    const path = files();
    const store = open(path);
    const mine = storedIntent();
    await store.transact(async (tx) => tx.intents.insert(mine));
    expect(store.changedElsewhere()).toBe(true);
    expect(store.changedElsewhere()).toBe(false);

    const cli = open(path, true);
    await cli.transact(async (tx) => tx.accounts.create({ name: 'another' }));
    expect(store.changedElsewhere()).toBe(false);
    await store.transact(async (tx) => tx.intents.insert(storedIntent()));
    expect(store.changedElsewhere()).toBe(false);

    await cli.transact(async (tx) => tx.intents.update({ ...mine, reference: 'changed elsewhere' }));
    expect(store.changedElsewhere()).toBe(true);
    expect(store.changedElsewhere()).toBe(false);
  });

  it('changedElsewhere: an intent written elsewhere between two of this process\'s batches still counts', async () => {
    const path = files();
    const store = open(path);
    expect(store.changedElsewhere()).toBe(true);
    const cli = open(path, true);
    await store.transact(async (tx) => tx.intents.insert(storedIntent()));
    await cli.transact(async (tx) => tx.intents.insert(storedIntent()));
    // This batch begins after the other connection's commit: the count it finds is not the one it left.
    await store.transact(async (tx) => tx.intents.insert(storedIntent()));
    expect(store.changedElsewhere()).toBe(true);
    expect(store.changedElsewhere()).toBe(false);
  });

  it('changedElsewhere: a batch whose COMMIT failed leaves nothing that hides a later write elsewhere', async () => {
    const path = files();
    const store = open(path);
    expect(store.changedElsewhere()).toBe(true);
    const cli = open(path, true);
    // The failed batch wrote an intent (the count moved inside it) and rolled back: had the count
    // it read before its COMMIT been taken as this process's, one intent written elsewhere after
    // it would bring the count back to that number and go unseen.
    const failed = store.transact(async (tx) => {
      tx.intents.insert(storedIntent());
      store.failThisCommit();
    });
    await expect(failed).rejects.toThrow();
    expect(store.changedElsewhere()).toBe(false);
    await cli.transact(async (tx) => tx.intents.insert(storedIntent()));
    expect(store.changedElsewhere()).toBe(true);

    // An intent written elsewhere before a batch whose COMMIT then fails still counts.
    await cli.transact(async (tx) => tx.intents.insert(storedIntent()));
    await expect(
      store.transact(async (tx) => {
        tx.intents.insert(storedIntent());
        store.failThisCommit();
      }),
    ).rejects.toThrow();
    expect(store.changedElsewhere()).toBe(true);
    expect(store.changedElsewhere()).toBe(false);
  });

  it('changedElsewhere: an intent this connection writes outside the group committer counts (its rows are not followed)', async () => {
    const path = files();
    const store = open(path);
    expect(store.changedElsewhere()).toBe(true);
    // writeNow: a transaction of its own on the server's connection (boot, CLI-style writes).
    store.db.sqlite.transaction(() => store.repos.intents.insert(storedIntent())).immediate();
    await store.transact(async (tx) => tx.intents.insert(storedIntent()));
    expect(store.changedElsewhere()).toBe(true);
    expect(store.changedElsewhere()).toBe(false);
  });

  it('skips its read while only this process writes, and reads what another connection committed', async () => {
    const path = files();
    const store = open(path);
    let reads = 0;
    let looks = 0;
    const runtime: Runtime = createRuntime({
      transact: (fn) => store.transact(fn),
      intents: {
        liveHeadsPage: (after, limit) => {
          if (after === null) reads++;
          return store.repos.intents.liveHeadsPage(after, limit);
        },
        get: (id) => store.repos.intents.get(id),
      },
      onDeliveriesQueued: () => {},
      resyncMs: 10,
      changedElsewhere: () => {
        looks++;
        return store.changedElsewhere();
      },
    });
    stores.later(() => runtime.stop());
    expect(await runtime.rehydrateLive()).toBe(0);
    expect(reads).toBe(1);

    for (let i = 0; i < 3; i++) await runtime.write(async (tx: Tx) => tx.insert(fresh()));
    expect(runtime.liveIntents()).toBe(3);
    // Several periods pass with nothing but this process's commits: no scan reads the rows.
    const after = looks;
    await until(() => looks >= after + 3, 'three periodic looks');
    expect(reads).toBe(1);

    // A CLI command (another connection) adds a live intent: the next period reads it.
    const cli = open(path, true);
    const now = Date.now();
    await cli.transact(async (tx) => tx.intents.insert(storedIntent({ createdAt: now, updatedAt: now, expiresAt: now + 600_000 })));
    await until(() => runtime.liveIntents() === 4, 'the other connection\'s intent followed');
    expect(reads).toBe(2);
  });
});
