// Live work under work leases with two booted cores on one real PostgreSQL database (each its own
// pool, keeper and scripted EVM watcher, as two instances): they split the shards, each follows
// only its own; when A stalls (its keeper stops renewing) and B takes A's shards over, A's chain
// report is fenced out in its own transaction while B's is written; B reads the shards it took at
// once (watches A's pending intent, expires A's overdue one); a clean stop hands everything over.
import { afterEach, describe, expect, it } from 'vitest';
import { SQL } from 'bun';
import { SHARDS, shardName, shardOf } from '../../src/actors/work-leases';
import { createCore, type Core } from '../../src/compose';
import { validate } from '../../src/config';
import { DEFAULT_CONFIG } from '../../src/config.types';
import { newId } from '../../src/domain/ids';
import type { StoredIntent } from '../../src/store/intents';
import { CHAIN, pendingIntent, scriptedWatcher } from '../support/core';
import { freshDatabaseUrl } from '../support/postgres';

const L = 4;
let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function instance(url: string) {
  const { watcher, adapter } = scriptedWatcher();
  const config = validate({
    ...structuredClone(DEFAULT_CONFIG),
    db: url,
    logLevel: 'error',
    networks: { [CHAIN]: { rpc: ['http://127.0.0.1:9'] } },
    cluster: { ...DEFAULT_CONFIG.cluster, leaseSeconds: L },
  });
  const core: Core = await createCore(config, { adapters: { evm: adapter } });
  cleanup.push(() => core.stop());
  await core.boot();
  return { core, watcher };
}

const shards = (c: Core) => c.work.held().filter((n) => n.startsWith('shard:'));
const row = async (c: Core, id: string) => (await c.store.repos.intents.get(id)) as StoredIntent;
/** A fresh intent id whose shard `core` holds. */
function idHeldBy(core: Core): string {
  for (;;) {
    const id = newId('pi');
    if (core.work.fenceForIntent(id) !== null) return id;
  }
}

describe('live work under leases on PostgreSQL, two instances', () => {
  it('split, fenced takeover of a stalled instance, then a clean stop hands everything over', async () => {
    const url = await freshDatabaseUrl();
    const a = await instance(url);
    const b = await instance(url);
    await until('an even split', () => shards(a.core).length === 8 && shards(b.core).length === 8);

    const paying = await pendingIntent(a.core, { id: idHeldBy(a.core) });
    const expiring = await pendingIntent(a.core, { id: idHeldBy(a.core), expiresAt: Date.now() + 1_500 }, false);
    await until('A watches its pending intent', () => a.watcher.watched.has(paying.id));
    // B's periodic scan does not take what A holds.
    await b.core.runtime.resync();
    expect(b.watcher.watched.has(paying.id)).toBe(false);

    // A stalls: its keeper stops renewing (its runtime still believes it holds its shards), and
    // its leases run out (made to at once here, by the database's clock).
    const sql = new SQL({ url, max: 1 });
    cleanup.push(() => sql.close());
    a.core.work.halt();
    await sql`UPDATE leases SET expires_at = 0 WHERE owner = ${a.core.work.owner}`;
    await until('B to hold every shard', () => shards(b.core).length === SHARDS, L * 1000);
    await until('B watches the pending intent', () => b.watcher.watched.has(paying.id));
    const shard = shardName(shardOf(paying.id));
    expect(b.core.work.fence(shard)!.epoch).toBeGreaterThan(1);

    // A's late report (it still watches) is fenced out in its write (or, once A's own view of its
    // lease ran out, not even tried); B's is written.
    expect(a.watcher.say(paying.id, 'confirmed')).toBe(true);
    await until('A to drop its report', () => !a.watcher.watched.has(paying.id) || a.core.work.fenceForIntent(paying.id) === null);
    expect((await row(b.core, paying.id)).state).toBe('pending');
    b.watcher.say(paying.id, 'confirmed');
    await until('confirmed by B', async () => (await row(b.core, paying.id)).state === 'confirmed');
    await until('expired by B', async () => (await row(b.core, expiring.id)).state === 'expired');

    // One confirmed event, one expired event: nothing written twice.
    const events = (await sql`SELECT intent_id, type FROM events WHERE intent_id IN (${paying.id}, ${expiring.id}) ORDER BY seq`) as Array<{ intent_id: string; type: string }>;
    expect(events.filter((e) => e.intent_id === paying.id).map((e) => e.type)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed']);
    expect(events.filter((e) => e.intent_id === expiring.id).map((e) => e.type)).toEqual(['intent.created', 'intent.expired']);

    // A third instance joins; B stops cleanly: the newcomer holds everything at once.
    const c = await instance(url);
    await b.core.stop();
    await until('C to hold every shard', () => shards(c.core).length === SHARDS && c.core.work.fenceForChain(CHAIN) !== null, L * 1000);
    await until('C watches the confirmed intent', () => c.watcher.watched.has(paying.id));
  });
});
