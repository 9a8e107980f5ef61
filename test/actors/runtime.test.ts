// The runtime on a real core (either store, real migrations, chain watch) with a scripted watcher:
// a write function that throws after a move, and a second runtime on the same database whose
// memory is stale. Each fails on a runtime that keeps long-lived actors: the stale actor decided.
// (Failed COMMITs, a SQLite fault: runtime-commit-fault.test.ts.)
import { describe, expect, it } from 'vitest';
import { cancelIntent } from '../../src/intents/cancel-intent';
import { eventTypesOf, pendingIntent, rowOf, scriptedCores, until } from '../support/core';
import { testEngine } from '../support/test-store';

// The runtime rehydrated, no detectors or dispatcher: each test drives the chain reports itself.
const { start } = scriptedCores((core) => core.runtime.rehydrateLive());

describe('a failed write changes nothing', () => {
  it('runs on the store PAYFORGE_TEST_STORE names', async () => {
    const { core } = await start();
    expect(core.store.engine).toBe(testEngine());
  });

  it('a write function that throws after a move changes nothing: the next move starts from the row', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core, {}, false);
    await expect(
      core.runtime.write(async (tx) => {
        await tx.apply((await tx.get(i.id))!, { type: 'SUBMIT', at: tx.now, txSignature: '0xabc' }, 'throw');
        throw new Error('after the move');
      }),
    ).rejects.toThrow('after the move');
    expect(await rowOf(core, i.id)).toMatchObject({ state: 'created', txSignature: null });
    // From created, a cancel is allowed (it would not be from the pending the failed write computed).
    const r = await core.runtime.write(async (tx) => tx.apply((await tx.get(i.id))!, { type: 'CANCEL', at: tx.now }, 'throw'));
    expect(r!.state).toBe('cancelled');
    expect(watcher.calls).toEqual([]);
    expect(await eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.cancelled']);
  });
});


describe('a second runtime on the same database file, with stale memory', () => {
  it('cannot turn finalized into expired, accept a cancel of finalized, or move it back on a stale report', async () => {
    const a = await start();
    const i = await pendingIntent(a.core, {}, false);
    // B boots while the intent is still created: whatever B holds in memory says created.
    const b = await start(a.path);
    await until(() => b.core.runtime.liveIntents() === 1, 'B follows the intent');

    // A drives it to finalized.
    await a.core.runtime.write(async (tx) => tx.apply((await tx.get(i.id))!, { type: 'SIMULATE_CONFIRMED', at: tx.now }, 'throw'));
    await a.core.runtime.write(async (tx) => tx.apply((await tx.get(i.id))!, { type: 'SIMULATE_FINALIZED', at: tx.now }, 'throw'));
    const finalized = (await rowOf(a.core, i.id))!;
    expect(finalized.state).toBe('finalized');

    // B's deadline (what it runs when the TTL it armed comes due) re-reads the row: no move.
    expect(await b.core.runtime.write(async (tx) => tx.apply((await tx.get(i.id))!, { type: 'EXPIRE', at: tx.now }, 'ignore'))).toBeNull();
    // B's cancel verb: 409 intent.invalid_state naming the row's state.
    const caller = { accountId: finalized.accountId, mode: finalized.mode, keyId: 'key_test', plan: 'pro' } as never;
    await expect(cancelIntent(b.core.services, caller, { id: i.id })).rejects.toMatchObject({
      code: 'intent.invalid_state',
      details: { intent_id: i.id, current_state: 'finalized' },
    });
    expect(await rowOf(b.core, i.id)).toEqual(finalized);
    expect(await eventTypesOf(b.core, i.id)).toEqual(['intent.created', 'intent.confirmed', 'intent.finalized']);
  });

  it("B's periodic scan follows what A committed: A's pending intent is watched by B, A's finalized one is not", async () => {
    const a = await start();
    const b = await start(a.path);
    const i = await pendingIntent(a.core);
    expect(b.watcher.watched.has(i.id)).toBe(false);
    await b.core.runtime.resync();
    expect(b.watcher.watched.get(i.id)?.stage).toBe('pending');
    await a.core.runtime.write(async (tx) => tx.apply((await tx.get(i.id))!, { type: 'CHAIN_FINALIZED', at: tx.now, txSignature: i.txSignature! }, 'throw'));
    await b.core.runtime.resync();
    expect(b.watcher.watched.has(i.id)).toBe(false);
    expect(b.core.runtime.liveIntents()).toBe(0);
  });
});

describe('one move past a state reports each event as the machine had the intent then', () => {
  it('pending -> finalized in one report: intent.confirmed shows confirmed (finalizedAt null), intent.finalized the row', async () => {
    const { core } = await start();
    const i = await pendingIntent(core);
    const row = await core.runtime.write(async (tx) => tx.apply((await tx.get(i.id))!, { type: 'CHAIN_FINALIZED', at: tx.now, txSignature: i.txSignature! }, 'throw'));
    const shown = (await core.store.repos.events.timeline(i.id))
      .filter((e) => e.type === 'intent.confirmed' || e.type === 'intent.finalized')
      .map((e) => ({ type: e.type, intent: (JSON.parse(e.payload) as { data: { intent: Record<string, unknown> } }).data.intent }));
    const at = new Date(row!.finalizedAt!).toISOString();
    expect(shown.map((e) => [e.type, e.intent.state, e.intent.confirmedAt, e.intent.finalizedAt, e.intent.txSignature])).toEqual([
      ['intent.confirmed', 'confirmed', at, null, i.txSignature],
      ['intent.finalized', 'finalized', at, at, i.txSignature],
    ]);
    expect(await rowOf(core, i.id)).toMatchObject({ state: 'finalized', confirmedAt: row!.finalizedAt, finalizedAt: row!.finalizedAt });
  });
});
