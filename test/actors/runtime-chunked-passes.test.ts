// The runtime's passes over every live intent run a chunk per turn of the event loop (a lost
// lease's drop, the scan): on a real store of each engine, with more live intents than a chunk,
// what changes while a pass is under way is neither lost nor undone by it. A shard taken back
// between two chunks of a drop keeps what is followed of it from then on; a scan for a shard
// just leased, run beside a periodic scan that read the rows before the lease came, is not
// undone by that older scan.
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime, type Tx } from '../../src/actors/runtime';
import { shardOf } from '../../src/actors/work-leases';
import type { Fence } from '../../src/actors/work-leases';
import type { LiveCursor } from '../../src/store/intents';
import { engineStore, ENGINES, type EngineStore } from '../support/engines';
import { storedIntent } from '../support/db';

const open: EngineStore[] = [];
const runtimes: Runtime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) r.stop();
  await Promise.all(open.splice(0).map((s) => s.dispose()));
});

/** More than one chunk of the drop (2,000) and several scan pages (500). */
const N = 4_500;
const turn = () => new Promise<void>((r) => setImmediate(r));

const followed = async (runtime: Runtime) => {
  const ids: string[] = [];
  await runtime.dropWhere((id) => (ids.push(id), false));
  return new Set(ids);
};

/** A runtime on a fresh store of `engine`, its work leases the shards in `held` (mutable). */
async function setup(engine: (typeof ENGINES)[number], held: Set<number>, hold?: { page?: () => Promise<void> }) {
  const es = await engineStore(engine);
  open.push(es);
  const { store } = es;
  const fence: Fence = { name: 'shard', epoch: 1 };
  const runtime = createRuntime({
    transact: (fn, opts) => store.transact(fn, opts),
    intents: {
      liveHeadsPage: async (after: LiveCursor | null, limit: number) => {
        await hold?.page?.();
        return store.repos.intents.liveHeadsPage(after, limit);
      },
      get: (id) => store.repos.intents.get(id),
    },
    onDeliveriesQueued: () => {},
    work: () => ({ owner: 'inst_test', fenceForIntent: (id) => (held.has(shardOf(id)) ? fence : null) }),
  });
  runtimes.push(runtime);
  const now = Date.now();
  const row = (n: number) => storedIntent({ createdAt: now + n, updatedAt: now, expiresAt: now + 600_000 });
  // Rows written as another connection would (one transaction): only a scan follows them.
  const rows = Array.from({ length: N }, (_, n) => row(n));
  await store.transact(async (tx) => {
    for (const r of rows) await tx.intents.insert(r);
  });
  /** A create through this runtime (handed over at its commit), its id in a shard held now. */
  const create = () => {
    let r = row(N + 1);
    while (!held.has(shardOf(r.id))) r = row(N + 1);
    const { state: _s, snapshot: _n, machineVersion: _m, ...fields } = r;
    return runtime.write(async (tx: Tx) => tx.insert(fields));
  };
  return { runtime, rows, create };
}

describe.each(ENGINES)('passes over every live intent, a chunk per turn (%s)', (engine) => {
  it("a lost shard's drop: a chunk per turn; a shard taken back between two chunks, and what is followed meanwhile, stay followed", async () => {
    const held = new Set(Array.from({ length: 16 }, (_, n) => n));
    const { runtime, rows, create } = await setup(engine, held);
    expect(await runtime.resync()).toBe(N);
    const lost = new Set([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const s of lost) held.delete(s);
    // compose.ts's predicate: in a lost shard and not held (again) when the pass reaches the intent.
    const gone = (id: string) => lost.has(shardOf(id)) && !held.has(shardOf(id));
    let visits = 0;
    let visitsAtTurn = -1;
    const drop = runtime.dropWhere((id) => {
      visits++;
      return gone(id);
    });
    // Between the first chunk and the next: shard 0 is taken back (and a write follows an intent of a kept shard).
    await turn();
    visitsAtTurn = visits;
    held.add(0);
    let made!: Awaited<ReturnType<typeof create>>;
    const writing = create().then((m) => (made = m));
    await drop;
    await writing;
    // It went a chunk at a time: a turn came before it had visited every intent.
    expect(visitsAtTurn).toBeGreaterThan(0);
    expect(visitsAtTurn).toBeLessThan(N);
    const now = await followed(runtime);
    // Every intent of a shard still lost is dropped; every intent of the kept shards is followed.
    for (const r of rows) {
      const s = shardOf(r.id);
      if (s !== 0) expect(now.has(r.id), `${r.id} (shard ${s})`).toBe(!lost.has(s));
    }
    expect(now.has(made.id)).toBe(true);
    // Shard 0's resync (onGained's): all of it followed again, whatever the drop did before the take-back.
    await runtime.resync();
    const after = await followed(runtime);
    for (const r of rows) if (shardOf(r.id) === 0) expect(after.has(r.id)).toBe(true);
    expect(after.size).toBe(rows.filter((r) => !lost.has(shardOf(r.id)) || shardOf(r.id) === 0).length + 1);
  });

  it('a scan for a shard just leased, beside a periodic scan that read the rows before the lease came: the older scan does not unfollow what the newer one followed', async () => {
    const held = new Set(Array.from({ length: 15 }, (_, n) => n + 1)); // all but shard 0
    let release: (() => void) | null = null;
    let second: (() => void) | null = null;
    const firstRead = new Promise<void>((r) => (second = r));
    let pages = 0;
    const hold = {
      // The periodic scan stops once it has followed its first page (shard 0 not held then), until the test lets it go on.
      page: async () => {
        if (++pages !== 2 || !second) return;
        second();
        second = null;
        await new Promise<void>((r) => (release = r));
      },
    };
    const { runtime, rows } = await setup(engine, held, hold);
    pages = 0;
    const periodic = runtime.resync();
    await firstRead;
    // Shard 0 leased meanwhile: its scan runs to the end while the periodic one waits.
    held.add(0);
    await runtime.resync();
    const zero = rows.filter((r) => shardOf(r.id) === 0);
    const before = await followed(runtime);
    for (const r of zero) expect(before.has(r.id)).toBe(true);
    release!();
    await periodic;
    const after = await followed(runtime);
    for (const r of zero) expect(after.has(r.id), r.id).toBe(true);
    expect(after.size).toBe(N);
  });
});
