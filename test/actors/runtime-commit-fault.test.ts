// The runtime driven into its COMMIT failure windows, on a real core (real SQLite file, real
// migrations, group commit, chain watch) with a scripted watcher: a failed COMMIT of a chain
// report, a failed write beside a watched intent, a deadline racing a chain report in a batch that
// fails. Each fails on a runtime that keeps long-lived actors: eviction on rollback unwatched the
// intent. SQLite only: the fault is SQLite's (failThisCommit fails the group committer's batch).
import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/compose';
import { failThisCommit } from '../../src/store/faults';
import { eventTypesOf, pendingIntent, rowOf, scriptedCores, sqliteDb, until } from '../support/core';
import { withRawSql } from '../support/raw-sql';

// The runtime rehydrated, no detectors or dispatcher: each test drives the chain reports itself.
const { start } = scriptedCores((core) => core.runtime.rehydrateLive());

/** Queue a write in the current batch whose COMMIT then fails, taking every write of the batch with it. */
const failTheBatch = (core: Core) => core.runtime.write(async () => failThisCommit(sqliteDb(core).sqlite)).catch(() => 'commit failed');

const stateOf = async (core: Core, id: string) => (await rowOf(core, id))!.state;

describe('a failed COMMIT never unwatches an intent', () => {
  it('a chain report whose COMMIT fails is kept and written again: confirmed -> finalized without a restart', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core);
    await until(() => watcher.watched.has(i.id), 'watched');
    watcher.say(i.id, 'confirmed');
    await until(async () => await stateOf(core, i.id) === 'confirmed', 'confirmed');

    // The watcher says finalized once and forgets the transaction (as the Solana watcher does);
    // the batch that carries the report fails at COMMIT.
    expect(watcher.say(i.id, 'finalized', { forget: true })).toBe(true);
    expect(await failTheBatch(core)).toBe('commit failed');
    expect(await stateOf(core, i.id)).toBe('confirmed');

    await until(async () => await stateOf(core, i.id) === 'finalized', 'finalized');
    expect(await eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
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
    expect((await rowOf(core, i.id))!.detectedAt).toBeNull();

    // Still followed: what the chain says next is heard and written.
    expect(watcher.calls.filter(([c]) => c === 'unwatch')).toEqual([]);
    expect(watcher.say(i.id, 'confirmed')).toBe(true);
    await until(async () => await stateOf(core, i.id) === 'confirmed', 'confirmed');
    expect(await eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed']);
  });
});

describe('a deadline racing a chain report', () => {
  it('TTL and a finalized report in one batch whose COMMIT fails: both are tried again, the intent ends finalized, never expired', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core);
    await until(() => watcher.watched.has(i.id), 'watched');
    // The deadline comes due now (as if the TTL ran out), in the same batch as the chain's report.
    await withRawSql(core.config.db, (q) => q.run('UPDATE intents SET expires_at = ? WHERE id = ?', Date.now() - 1, i.id));
    await core.runtime.resync();
    expect(watcher.say(i.id, 'finalized', { forget: true })).toBe(true);
    await failTheBatch(core);

    // Whichever ran first (the TTL sets pendingAtExpiry on a pending intent), it ends finalized.
    const done = await until(async () => {
      const row = (await rowOf(core, i.id))!;
      return row.state === 'finalized' ? row : null;
    }, 'finalized');
    expect(done.txSignature).toBe(i.txSignature);
    expect(await eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
  });

  it('a dropped report racing the TTL ends expired once (pendingAtExpiry), not dropped then expired', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core);
    await until(() => watcher.watched.has(i.id), 'watched');
    await withRawSql(core.config.db, (q) => q.run('UPDATE intents SET expires_at = ? WHERE id = ?', Date.now() - 1, i.id));
    await core.runtime.resync();
    await until(async () => (await rowOf(core, i.id))!.pendingAtExpiry, 'pendingAtExpiry');
    watcher.say(i.id, 'dropped', { forget: true });
    await failTheBatch(core);
    await until(async () => await stateOf(core, i.id) === 'expired', 'expired');
    expect(await eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.expired']);
  });
});

