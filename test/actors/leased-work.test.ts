// Live work under work leases on a real booted core (real SQLite file and migrations, group
// commit, runtime, chain watch; the EVM watcher scripted): the one serve holds every lease; when
// another owner takes an intent's shard over (as after this instance stalled past its lease), the
// chain report and the expiry this instance still had under way are fenced out in their own
// transactions (the row is untouched), it stops following that shard, and once the shard is free
// again it takes it back and reads its rows at once (a deadline that passed meanwhile expires then).
import { afterEach, describe, expect, it } from 'vitest';
import { SHARDS, shardName, shardOf } from '../../src/actors/work-leases';
import { createCore, type Core } from '../../src/compose';
import { validate } from '../../src/config';
import { DEFAULT_CONFIG } from '../../src/config.types';
import { newId } from '../../src/domain/ids';
import { openDb } from '../../src/store/db';
import { createLeaseStore } from '../../src/store/leases';
import { CHAIN, eventTypesOf, pendingIntent, rowOf, scriptedWatcher, until } from '../support/core';
import { tempDb, type TempDb } from '../support/db';

const L = 6;
let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

async function bootedCore(): Promise<{ core: Core; watcher: ReturnType<typeof scriptedWatcher>['watcher']; db: TempDb }> {
  const db = tempDb();
  db.db.close();
  const { watcher, adapter } = scriptedWatcher();
  const config = validate({
    ...structuredClone(DEFAULT_CONFIG),
    db: db.path,
    logLevel: 'error',
    networks: { [CHAIN]: { rpc: ['http://127.0.0.1:9'] } },
    cluster: { ...DEFAULT_CONFIG.cluster, leaseSeconds: L },
  });
  const core = await createCore(config, { adapters: { evm: adapter } });
  cleanup.push(() => db.dispose());
  cleanup.push(() => core.stop());
  await core.boot();
  return { core, watcher, db };
}

/** A fresh intent id in the same shard as `id`. */
function idInShardOf(id: string): string {
  for (;;) {
    const other = newId('pi');
    if (shardOf(other) === shardOf(id)) return other;
  }
}

describe('live work under leases on SQLite', () => {
  it('the one serve holds every shard and every chain', async () => {
    const { core } = await bootedCore();
    expect(core.work.held().filter((n) => n.startsWith('shard:'))).toHaveLength(SHARDS);
    expect(core.work.fenceForChain(CHAIN)).not.toBeNull();
  });

  it('after a takeover of its shard, its chain report and its expiry are fenced out; it takes the shard back once free', async () => {
    const { core, watcher, db } = await bootedCore();
    const paying = await pendingIntent(core);
    await until(() => watcher.watched.has(paying.id), 'the pending intent watched');
    // A created intent of the same shard whose TTL runs out in a moment.
    const expiring = await pendingIntent(core, { id: idInShardOf(paying.id), expiresAt: Date.now() + 300 }, false);
    const shard = shardName(shardOf(paying.id));
    const mine = core.work.fence(shard)!;

    // Another instance takes the shard over (its lease expired under this one, as after a stall).
    const other = openDb(db.path);
    cleanup.push(() => other.close());
    const leases = createLeaseStore(other.sqlite);
    other.sqlite.query('UPDATE leases SET expires_at = 0 WHERE name = ?').run(shard);
    expect(leases.take([shard], 'inst_other', 600_000)).toEqual([{ name: shard, epoch: mine.epoch + 1 }]);

    // This instance still reports and expires: both writes check the lease first and are dropped.
    watcher.say(paying.id, 'confirmed');
    await until(() => !watcher.watched.has(paying.id), 'the pending intent no longer watched here');
    await until(() => core.runtime.liveIntents() === 0 && !core.work.held().includes(shard), 'the shard given up here');
    expect((await rowOf(core, paying.id))!.state).toBe('pending');
    expect((await rowOf(core, expiring.id))!.state).toBe('created');
    expect(await eventTypesOf(core, paying.id)).toEqual(['intent.created', 'intent.pending']);
    expect(await eventTypesOf(core, expiring.id)).toEqual(['intent.created']);

    // The other instance gives it up: this one takes it back (a new epoch) and reads the shard at once.
    leases.release([{ name: shard, epoch: mine.epoch + 1 }], 'inst_other');
    await until(async () => (await rowOf(core, expiring.id))!.state === 'expired', 'the overdue intent expired by the new holder', 20_000);
    await until(() => watcher.watched.has(paying.id), 'the pending intent watched again');
    expect(core.work.fence(shard)!.epoch).toBe(mine.epoch + 2);
    watcher.say(paying.id, 'confirmed');
    await until(async () => (await rowOf(core, paying.id))!.state === 'confirmed', 'confirmed under the new lease');
  });
});
