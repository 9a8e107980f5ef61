// The runtime driven into its failure windows, on a real core (real SQLite file, real migrations,
// group commit, chain watch) with a scripted watcher: a failed COMMIT of a chain report, a failed
// write beside a watched intent, a deadline racing a chain report in a batch that fails, and a
// second runtime on the same file whose memory is stale. Each fails on a runtime that keeps
// long-lived actors: eviction on rollback unwatched the intent, and the stale actor decided.
import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/compose';
import { cancelIntent } from '../../src/intents/cancel-intent';
import { failThisCommit } from '../../src/store/faults';
import { openDb } from '../../src/store/db';
import { eventTypesOf, pendingIntent, rowOf, scriptedCores, sqliteDb, until } from '../support/core';

// The runtime rehydrated, no detectors or dispatcher: each test drives the chain reports itself.
const { start } = scriptedCores((core) => core.runtime.rehydrateLive());

/** Queue a write in the current batch whose COMMIT then fails, taking every write of the batch with it. */
const failTheBatch = (core: Core) => core.runtime.write(async () => failThisCommit(sqliteDb(core).sqlite)).catch(() => 'commit failed');

const stateOf = (core: Core, id: string) => rowOf(core, id)!.state;

describe('a failed COMMIT never unwatches an intent', () => {
  it('a chain report whose COMMIT fails is kept and written again: confirmed -> finalized without a restart', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core);
    await until(() => watcher.watched.has(i.id), 'watched');
    watcher.say(i.id, 'confirmed');
    await until(() => stateOf(core, i.id) === 'confirmed', 'confirmed');

    // The watcher says finalized once and forgets the transaction (as the Solana watcher does);
    // the batch that carries the report fails at COMMIT.
    expect(watcher.say(i.id, 'finalized', { forget: true })).toBe(true);
    expect(await failTheBatch(core)).toBe('commit failed');
    expect(stateOf(core, i.id)).toBe('confirmed');

    await until(() => stateOf(core, i.id) === 'finalized', 'finalized');
    expect(eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
    // Its write settles once synced (after the row is visible): then nothing is left unwritten.
    await until(() => core.chainWatch.unwrittenCount() === 0, 'no report left unwritten');
  });

  it('a failed write of something else on a watched intent leaves it watched (the old rollback evicted and unwatched it)', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core);
    await until(() => watcher.watched.has(i.id), 'watched');
    // DETECTED on the pending intent, in a batch whose COMMIT fails.
    const detected = core.runtime.write(async (tx) => tx.apply((await tx.get(i.id))!, { type: 'DETECTED', at: tx.now }, 'throw'));
    expect(await failTheBatch(core)).toBe('commit failed');
    await expect(detected).rejects.toThrow(/FOREIGN KEY/);
    expect(rowOf(core, i.id)!.detectedAt).toBeNull();

    // Still followed: what the chain says next is heard and written.
    expect(watcher.calls.filter(([c]) => c === 'unwatch')).toEqual([]);
    expect(watcher.say(i.id, 'confirmed')).toBe(true);
    await until(() => stateOf(core, i.id) === 'confirmed', 'confirmed');
    expect(eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed']);
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
    expect(rowOf(core, i.id)).toMatchObject({ state: 'created', txSignature: null });
    // From created, a cancel is allowed (it would not be from the pending the failed write computed).
    const r = await core.runtime.write(async (tx) => tx.apply((await tx.get(i.id))!, { type: 'CANCEL', at: tx.now }, 'throw'));
    expect(r!.state).toBe('cancelled');
    expect(watcher.calls).toEqual([]);
    expect(eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.cancelled']);
  });
});

describe('a deadline racing a chain report', () => {
  it('TTL and a finalized report in one batch whose COMMIT fails: both are tried again, the intent ends finalized, never expired', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core);
    await until(() => watcher.watched.has(i.id), 'watched');
    // The deadline comes due now (as if the TTL ran out), in the same batch as the chain's report.
    const admin = openDb(core.config.db);
    admin.sqlite.query('UPDATE intents SET expires_at = ? WHERE id = ?').run(Date.now() - 1, i.id);
    admin.close();
    await core.runtime.resync();
    expect(watcher.say(i.id, 'finalized', { forget: true })).toBe(true);
    await failTheBatch(core);

    // Whichever ran first (the TTL sets pendingAtExpiry on a pending intent), it ends finalized.
    const done = await until(() => {
      const row = rowOf(core, i.id)!;
      return row.state === 'finalized' ? row : null;
    }, 'finalized');
    expect(done.txSignature).toBe(i.txSignature);
    expect(eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
  });

  it('a dropped report racing the TTL ends expired once (pendingAtExpiry), not dropped then expired', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core);
    await until(() => watcher.watched.has(i.id), 'watched');
    const admin = openDb(core.config.db);
    admin.sqlite.query('UPDATE intents SET expires_at = ? WHERE id = ?').run(Date.now() - 1, i.id);
    admin.close();
    await core.runtime.resync();
    await until(() => rowOf(core, i.id)!.pendingAtExpiry, 'pendingAtExpiry');
    watcher.say(i.id, 'dropped', { forget: true });
    await failTheBatch(core);
    await until(() => stateOf(core, i.id) === 'expired', 'expired');
    expect(eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.expired']);
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
    const finalized = rowOf(a.core, i.id)!;
    expect(finalized.state).toBe('finalized');

    // B's deadline (what it runs when the TTL it armed comes due) re-reads the row: no move.
    expect(await b.core.runtime.write(async (tx) => tx.apply((await tx.get(i.id))!, { type: 'EXPIRE', at: tx.now }, 'ignore'))).toBeNull();
    // B's cancel verb: 409 intent.invalid_state naming the row's state.
    const caller = { accountId: finalized.accountId, mode: finalized.mode, keyId: 'key_test', plan: 'pro' } as never;
    await expect(cancelIntent(b.core.services, caller, { id: i.id })).rejects.toMatchObject({
      code: 'intent.invalid_state',
      details: { intent_id: i.id, current_state: 'finalized' },
    });
    expect(rowOf(b.core, i.id)).toEqual(finalized);
    expect(eventTypesOf(b.core, i.id)).toEqual(['intent.created', 'intent.confirmed', 'intent.finalized']);
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
    const shown = sqliteDb(core).sqlite
      .query<{ type: string; payload: string }, [string]>("SELECT type, payload FROM events WHERE intent_id = ? AND type IN ('intent.confirmed', 'intent.finalized') ORDER BY seq")
      .all(i.id)
      .map((e) => ({ type: e.type, intent: (JSON.parse(e.payload) as { data: { intent: Record<string, unknown> } }).data.intent }));
    const at = new Date(row!.finalizedAt!).toISOString();
    expect(shown.map((e) => [e.type, e.intent.state, e.intent.confirmedAt, e.intent.finalizedAt, e.intent.txSignature])).toEqual([
      ['intent.confirmed', 'confirmed', at, null, i.txSignature],
      ['intent.finalized', 'finalized', at, at, i.txSignature],
    ]);
    expect(rowOf(core, i.id)).toMatchObject({ state: 'finalized', confirmedAt: row!.finalizedAt, finalizedAt: row!.finalizedAt });
  });
});
