// Contract 14, "never out of sight": a transaction recorded for an intent stays watched after the
// intent closes unpaid (dropped, failed, expired, cancelled) for detection.lookbackSeconds. If it
// lands, it drives the intent when still payable (dropped), otherwise it becomes a late payment;
// across a restart too. A real core (either store, real migrations, matcher, payments ledger) with a
// scripted watcher, which reports only what it is asked to follow.
import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/compose';
import { eventTypesOf, pendingIntent, rowOf, scriptedCores, until } from '../support/core';
import { withRawSql } from '../support/raw-sql';

// Booted as serve boots it (runtime, chain watch, the look-back follows), without HTTP.
const { start, stopped } = scriptedCores((core) => core.boot());

const row = async (core: Core, id: string) => (await rowOf(core, id))!;
const paymentsOf = async (core: Core, txSignature: string) => {
  const p = await core.store.repos.payments.findByTx('eip155:84532', txSignature);
  return p ? { status: p.status, reason: p.reason, intentId: p.intentId } : null;
};

describe('a closed intent keeps its recorded transaction in sight', () => {
  it('dropped, then its transaction lands (a reorg undid the drop): the intent is driven to confirmed and finalized, paid once', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core);
    await until(() => watcher.watched.has(i.id), 'watched');
    watcher.say(i.id, 'dropped');
    await until(async () => (await row(core, i.id)).state === 'dropped', 'dropped');
    // Still followed, as a transaction known only by id (never rebroadcast).
    await until(() => watcher.watched.get(i.id)?.signedTransaction === null, 'followed after dropped');
    expect(watcher.watched.get(i.id)!.txSignature).toBe(i.txSignature);

    watcher.say(i.id, 'confirmed');
    await until(async () => (await row(core, i.id)).state === 'confirmed', 'confirmed');
    watcher.say(i.id, 'finalized');
    await until(async () => (await row(core, i.id)).state === 'finalized', 'finalized');
    expect(await row(core, i.id)).toMatchObject({ txSignature: i.txSignature, retryRequired: false, latePayment: null });
    expect(await eventTypesOf(core, i.id)).toEqual([
      'intent.created', 'intent.pending', 'intent.retry_required', 'intent.pending', 'intent.confirmed', 'intent.finalized',
    ]);
    expect(await paymentsOf(core, i.txSignature!)).toEqual({ status: 'matched', reason: null, intentId: i.id });
  });

  it('failed, then the same transaction succeeds after all: a late payment on the failed intent, recorded once', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core);
    await until(() => watcher.watched.has(i.id), 'watched');
    watcher.say(i.id, 'failed');
    await until(async () => (await row(core, i.id)).state === 'failed', 'failed');
    await until(() => watcher.watched.get(i.id)?.signedTransaction === null, 'followed after failed');

    watcher.say(i.id, 'confirmed');
    const late = await until(async () => (await row(core, i.id)).latePayment, 'latePayment');
    expect(late).toMatchObject({ txSignature: i.txSignature, amountBaseUnits: i.amountBaseUnits });
    watcher.say(i.id, 'finalized');
    await until(() => !watcher.watched.has(i.id), 'no longer followed once final');
    expect((await row(core, i.id)).state).toBe('failed');
    expect(await eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.failed', 'intent.late_payment']);
    expect(await paymentsOf(core, i.txSignature!)).toEqual({ status: 'late', reason: 'intent_closed', intentId: i.id });
  });

  it('expired with pendingAtExpiry (dropped at TTL), then a restart: followed again from the row and recorded late when it lands', async () => {
    const first = await start();
    const i = await pendingIntent(first.core);
    await until(() => first.watcher.watched.has(i.id), 'watched');
    await first.core.runtime.write(async (tx) => tx.apply((await tx.get(i.id))!, { type: 'EXPIRE', at: tx.now }, 'throw'));
    first.watcher.say(i.id, 'dropped');
    await until(async () => (await row(first.core, i.id)).state === 'expired', 'expired');
    await first.core.stop();
    stopped(first.core);

    const second = await start(first.path);
    await until(() => second.watcher.watched.get(i.id)?.txSignature === i.txSignature, 'followed after the restart');
    second.watcher.say(i.id, 'finalized');
    await until(async () => (await row(second.core, i.id)).latePayment, 'latePayment');
    expect((await row(second.core, i.id)).state).toBe('expired');
    expect(await eventTypesOf(second.core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.expired', 'intent.late_payment']);
    expect(await paymentsOf(second.core, i.txSignature!)).toEqual({ status: 'late', reason: 'intent_closed', intentId: i.id });
  });

  it('past the look-back it is no longer followed', async () => {
    const { core, watcher } = await start();
    const i = await pendingIntent(core);
    await until(() => watcher.watched.has(i.id), 'watched');
    watcher.say(i.id, 'failed');
    await until(async () => (await row(core, i.id)).state === 'failed', 'failed');
    // The row reads 'failed' once COMMITted; the runtime hands it to the chain watch only once
    // that commit is synced (group commit), so wait for the closed intent's follow (by id, never
    // rebroadcast), not for the row: a resync in between would see the old pending follow.
    await until(() => watcher.watched.get(i.id)?.signedTransaction === null, 'followed after failed');
    // The row now says it closed more than a look-back ago (detection.lookbackSeconds, a week here).
    await withRawSql(core.config.db, (q) => q.run('UPDATE intents SET updated_at = ? WHERE id = ?', Date.now() - 604_800_001, i.id));
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
