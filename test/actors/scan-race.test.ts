// The periodic scan of live rows against commits that land while it reads (on PostgreSQL its
// reads really yield; SQLite is driven into the same interleaving by holding the scan between
// its read and its handover). A commit handed over meanwhile is newer than the scan's copy: the
// scan must not put back the intent's old state (re-watch a closed intent as pending, whose
// watch the next scan then drops: its transaction out of sight) nor end the watch of an intent
// submitted meanwhile.
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Tx } from '../../src/actors/runtime';
import type { LiveCursor, StoredIntent } from '../../src/store/intents';
import { engineStore, ENGINES, type EngineStore } from '../support/engines';
import { storedIntent } from '../support/db';

const open: EngineStore[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.dispose()));
});

describe.each(ENGINES)('the live scan and a commit it did not see (%s)', (engine) => {
  it('a scan that read an intent as pending does not undo the commit that failed it, nor drop one submitted meanwhile', async () => {
    const es = await engineStore(engine);
    open.push(es);
    const { store } = es;
    // The scan stops after reading the live rows until the test lets it go on.
    let hold: Promise<void> | null = null;
    let scanRead!: () => void;
    const read = new Promise<void>((r) => (scanRead = r));
    const intents = {
      liveHeadsPage: async (after: LiveCursor | null, limit: number) => {
        const page = await store.repos.intents.liveHeadsPage(after, limit);
        scanRead();
        if (hold) await hold;
        return page;
      },
      get: (id: string) => store.repos.intents.get(id),
    };
    // newer() answers while the scan hands over (the runtime forgets the handovers after): asked then.
    const asked: string[] = [];
    const handed: Array<{ rows: StoredIntent[]; full: boolean; newer: Map<string, boolean | undefined> }> = [];
    const runtime = createRuntime({
      transact: (fn) => store.transact(fn),
      intents,
      onDeliveriesQueued: () => {},
      onCommitted: (rows, full, _accounts, newer) => void handed.push({ rows, full, newer: new Map(asked.map((id) => [id, newer?.(id)])) }),
    });
    const insert = (submit: boolean) => {
      const now = Date.now();
      const { state: _s, snapshot: _n, machineVersion: _m, ...fields } = storedIntent({ createdAt: now, updatedAt: now, expiresAt: now + 600_000 });
      return runtime.write(async (tx: Tx) => {
        const row = await tx.insert(fields);
        if (!submit) return row;
        return (await tx.apply(row, { type: 'SUBMIT', at: tx.now, txSignature: `0x${crypto.randomUUID().replaceAll('-', '').padEnd(64, '0')}` }, 'throw'))!;
      });
    };
    const failing = await insert(true);
    const later = await insert(false);
    asked.push(failing.id, later.id);

    let release!: () => void;
    hold = new Promise<void>((r) => (release = r));
    const scan = runtime.resync();
    await read;
    // While the scan holds its (now old) copy: one intent fails, another is submitted.
    await runtime.write(async (tx) => tx.apply((await tx.get(failing.id))!, { type: 'CHAIN_FAILED', at: tx.now, reason: 'revert' }, 'throw'));
    const submitted = await runtime.write(async (tx) =>
      tx.apply((await tx.get(later.id))!, { type: 'SUBMIT', at: tx.now, txSignature: `0x${'ab'.repeat(32)}` }, 'throw'),
    );
    release();
    await scan;

    const full = handed.filter((h) => h.full).at(-1)!;
    // The failed intent is not handed over again as the pending row the scan read...
    expect(full.rows.map((r) => r.id)).not.toContain(failing.id);
    // ...and both it and the intent submitted meanwhile keep what their commits handed over.
    expect(full.newer.get(failing.id)).toBe(true);
    expect(full.newer.get(later.id)).toBe(true);
    expect(submitted!.state).toBe('pending');
    // The runtime follows only what is live now: the submitted one, not the failed one.
    expect(runtime.liveIntents()).toBe(1);

    // The next scan, with nothing in between, sees the rows as they are and needs no exception.
    hold = null;
    await runtime.resync();
    const next = handed.filter((h) => h.full).at(-1)!;
    expect(next.rows.map((r) => r.id)).toEqual([later.id]);
    expect(next.newer.get(failing.id)).toBe(false);
    runtime.stop();
  });
});
