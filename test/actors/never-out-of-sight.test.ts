// Contract 14, "never out of sight": a transaction recorded for an intent stays watched after the
// intent closes unpaid (dropped, failed, expired, cancelled) for detection.lookbackSeconds. If it
// lands, it drives the intent when still payable (dropped), otherwise it becomes a late payment;
// across a restart too. A real core (real SQLite, migrations, matcher, payments ledger) with a
// scripted watcher, which reports only what it is asked to follow.
import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/compose';
import { eventTypesOf, pendingIntent, rowOf, scriptedCores, sqliteDb, sqliteStore, until } from '../support/core';

// Booted as serve boots it (runtime, chain watch, the look-back follows), without HTTP.
const { start, stopped } = scriptedCores((core) => core.boot());

const row = (core: Core, id: string) => rowOf(core, id)!;
const paymentsOf = (core: Core, txSignature: string) => {
  const p = sqliteStore(core).repos.payments.findByTx('eip155:84532', txSignature);
  return p ? { status: p.status, reason: p.reason, intentId: p.intentId } : null;
};

describe('a closed intent keeps its recorded transaction in sight', () => {
  it('dropped, then its transaction lands (a reorg undid the drop): the intent is driven to confirmed and finalized, paid once', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core);
    await until(() => watcher.watched.has(i.id), 'watched');
    watcher.say(i.id, 'dropped');
    await until(() => row(core, i.id).state === 'dropped', 'dropped');
    // Still followed, as a transaction known only by id (never rebroadcast).
    await until(() => watcher.watched.get(i.id)?.signedTransaction === null, 'followed after dropped');
    expect(watcher.watched.get(i.id)!.txSignature).toBe(i.txSignature);

    watcher.say(i.id, 'confirmed');
    await until(() => row(core, i.id).state === 'confirmed', 'confirmed');
    watcher.say(i.id, 'finalized');
    await until(() => row(core, i.id).state === 'finalized', 'finalized');
    expect(row(core, i.id)).toMatchObject({ txSignature: i.txSignature, retryRequired: false, latePayment: null });
    expect(eventTypesOf(core, i.id)).toEqual([
      'intent.created', 'intent.pending', 'intent.retry_required', 'intent.pending', 'intent.confirmed', 'intent.finalized',
    ]);
    expect(paymentsOf(core, i.txSignature!)).toEqual({ status: 'matched', reason: null, intentId: i.id });
  });

  it('failed, then the same transaction succeeds after all: a late payment on the failed intent, recorded once', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core);
    await until(() => watcher.watched.has(i.id), 'watched');
    watcher.say(i.id, 'failed');
    await until(() => row(core, i.id).state === 'failed', 'failed');
    await until(() => watcher.watched.get(i.id)?.signedTransaction === null, 'followed after failed');

    watcher.say(i.id, 'confirmed');
    const late = await until(() => row(core, i.id).latePayment, 'latePayment');
    expect(late).toMatchObject({ txSignature: i.txSignature, amountBaseUnits: i.amountBaseUnits });
    watcher.say(i.id, 'finalized');
    await until(() => !watcher.watched.has(i.id), 'no longer followed once final');
    expect(row(core, i.id).state).toBe('failed');
    expect(eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.failed', 'intent.late_payment']);
    expect(paymentsOf(core, i.txSignature!)).toEqual({ status: 'late', reason: 'intent_closed', intentId: i.id });
  });

  it('expired with pendingAtExpiry (dropped at TTL), then a restart: followed again from the row and recorded late when it lands', async () => {
    const first = await start();
    const i = await pendingIntent(first.core);
    await until(() => first.watcher.watched.has(i.id), 'watched');
    await first.core.runtime.write(async (tx) => tx.apply((await tx.get(i.id))!, { type: 'EXPIRE', at: tx.now }, 'throw'));
    first.watcher.say(i.id, 'dropped');
    await until(() => row(first.core, i.id).state === 'expired', 'expired');
    await first.core.stop();
    stopped(first.core);

    const second = await start(first.path);
    await until(() => second.watcher.watched.get(i.id)?.txSignature === i.txSignature, 'followed after the restart');
    second.watcher.say(i.id, 'finalized');
    await until(() => row(second.core, i.id).latePayment, 'latePayment');
    expect(row(second.core, i.id).state).toBe('expired');
    expect(eventTypesOf(second.core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.expired', 'intent.late_payment']);
    expect(paymentsOf(second.core, i.txSignature!)).toEqual({ status: 'late', reason: 'intent_closed', intentId: i.id });
  });

  it('past the look-back it is no longer followed', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core);
    await until(() => watcher.watched.has(i.id), 'watched');
    watcher.say(i.id, 'failed');
    await until(() => row(core, i.id).state === 'failed', 'failed');
    // The row reads 'failed' once COMMITted; the runtime hands it to the chain watch only once
    // that commit is synced (group commit), so wait for the closed intent's follow (by id, never
    // rebroadcast), not for the row: a resync in between would see the old pending follow.
    await until(() => watcher.watched.get(i.id)?.signedTransaction === null, 'followed after failed');
    // The row now says it closed more than a look-back ago (detection.lookbackSeconds, a week here).
    const admin = sqliteDb(core).sqlite;
    admin.query('UPDATE intents SET updated_at = ? WHERE id = ?').run(Date.now() - 604_800_001, i.id);
    // A live scan keeps the follow: it keeps the look-back it was given...
    await core.runtime.resync();
    expect(watcher.watched.has(i.id)).toBe(true);
    await core.stop();
    stopped(core);
    const again = await start(core.config.db);
    // ...and after a restart, the row says it closed more than a look-back ago: not followed.
    expect(again.watcher.watched.has(i.id)).toBe(false);
  });
});
