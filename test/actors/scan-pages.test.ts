// The periodic live scan reads the live intents a page at a time, the event loop turning between
// pages, so the pages are not one snapshot. An intent that closes, or is created, between two
// pages is neither lost nor brought back: this process's commits are handed over and win over
// the scan's copy whichever side of the page boundary they fall; another connection's commit is
// read by its page if that page comes later, else by the next scan (as if it had landed just
// after a single read). Pages of 2 here (the runtime asks for more; the test's repo answers with
// fewer), so three receivers make three pages. Both engines, through the real store.
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime, type Tx } from '../../src/actors/runtime';
import type { LiveCursor, StoredIntent } from '../../src/store/intents';
import { storedIntent } from '../support/db';
import { engineStore, ENGINES, type EngineStore } from '../support/engines';

const open: EngineStore[] = [];
const runtimes: Runtime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) r.stop();
  await Promise.all(open.splice(0).map((s) => s.dispose()));
});

/** The ids a runtime follows (dropWhere visits each and drops none). */
const followed = async (runtime: Runtime) => {
  const ids: string[] = [];
  await runtime.dropWhere((id) => (ids.push(id), false));
  return ids.sort();
};
const sorted = (...intents: StoredIntent[]) => intents.map((i) => i.id).sort();

describe.each(ENGINES)('the live scan in pages (%s)', (engine) => {
  it('follows more live intents than a page; intents closed or created between pages are neither lost nor resurrected', async () => {
    const es = await engineStore(engine);
    open.push(es);
    const { store } = es;
    let pages = 0;
    // Runs after the scan's first page is read, before the next (once).
    let between: (() => Promise<void>) | null = null;
    const runtime = createRuntime({
      transact: (fn) => store.transact(fn),
      intents: {
        liveHeadsPage: async (after: LiveCursor | null, _limit: number) => {
          const page = await store.repos.intents.liveHeadsPage(after, 2);
          pages++;
          const run = between;
          between = null;
          if (run) await run();
          return page;
        },
        get: (id) => store.repos.intents.get(id),
      },
      onDeliveriesQueued: () => {},
    });
    runtimes.push(runtime);

    const now = Date.now();
    const fields = (requestor: string, n: number) => {
      const { state: _s, snapshot: _n, machineVersion: _m, ...f } = storedIntent({ requestor, createdAt: now + n, updatedAt: now, expiresAt: now + 600_000 });
      return f;
    };
    // Through this process (handed over as they commit)...
    const mine = (requestor: string, n: number) => runtime.write(async (tx: Tx) => tx.insert(fields(requestor, n)));
    // ...and through another connection (PostgreSQL: another instance; SQLite: a CLI command): only a scan sees these.
    const theirs = async (requestor: string, n: number) => {
      const row = storedIntent({ requestor, createdAt: now + n, updatedAt: now, expiresAt: now + 600_000 });
      await store.transact(async (tx) => tx.intents.insert(row));
      return row;
    };
    const closeMine = (i: StoredIntent) => runtime.write(async (tx) => tx.apply((await tx.get(i.id))!, { type: 'CANCEL', at: tx.now }, 'throw'));
    const closeTheirs = async (i: StoredIntent) => store.transact(async (tx) => tx.intents.update({ ...(await tx.intents.get(i.id))!, state: 'expired' }));

    // Receivers 0xa < 0xb < 0xc: pages [a1 a2] [b1 b2] [c1 c2].
    const a1 = await mine('0xa', 1);
    const a2 = await theirs('0xa', 2);
    const b1 = await mine('0xb', 1);
    const b2 = await theirs('0xb', 2);
    const c1 = await theirs('0xc', 1);
    const c2 = await theirs('0xc', 2);
    expect(await runtime.resync()).toBe(6);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(await followed(runtime)).toEqual(sorted(a1, a2, b1, b2, c1, c2));

    // Between the first page (a1, a2 read live) and the rest:
    let n1!: StoredIntent;
    let o1!: StoredIntent;
    let o2!: StoredIntent;
    between = async () => {
      await closeMine(a1); // read live already: its close, handed over, wins over the copy
      await closeMine(b1); // not read yet: its page finds it closed
      n1 = await mine('0xa', 0); // in a page already read (before a2): handed over, kept
      await closeTheirs(a2); // read live already: followed until the next scan
      await closeTheirs(c1); // not read yet: its page finds it closed
      o1 = await theirs('0xa', -1); // in a page already read: the next scan finds it
      o2 = await theirs('0xd', 1); // in a page not read yet: found now
    };
    pages = 0;
    await runtime.resync();
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(await followed(runtime)).toEqual(sorted(a2, b2, c2, n1, o2));

    // The next scan, nothing in between: exactly the live rows.
    await runtime.resync();
    expect(await followed(runtime)).toEqual(sorted(b2, c2, n1, o1, o2));
  });
});
