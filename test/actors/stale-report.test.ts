// Review finding 6: a watcher report is a verdict on the transaction it was decided for. The row
// can move to another transaction before the report is written (a detected transfer drives the
// intent while the report's write fails and is retried, or while the watcher awaits a read), and
// then the old verdict must not land on the new transaction: a `dropped` on it tells the payer to
// pay again while the new transfer can still land (paid twice), a `finalized` on it hides the second
// payment. What the stale report says of its own transaction is still recorded (contract 14,
// "never out of sight"): its write-ahead record's outcome, a landing as a duplicate payment. An
// EVM repriced copy (reported under its own hash, about the followed transaction) still applies.
// A real core (either store, real migrations, matcher, payments ledger) with a scripted watcher.
import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/compose';
import type { FoundTransfer } from '../../src/chains/types';
import { recordFoundTransfer } from '../../src/intents/record-found-transfer';
import type { StoredIntent } from '../../src/store/intents';
import { CHAIN, eventTypesOf, pendingIntent, rowOf, scriptedCores, until } from '../support/core';

/** Reports of these intents whose write fails (thrown inside it, both engines) while listed; and each try. */
const blocked = new Set<string>();
const tries: Array<{ intentId: string; type: string }> = [];
const { start } = scriptedCores((core) => core.boot(), {
  faults: {
    chainReport(report) {
      tries.push(report);
      if (blocked.has(report.intentId)) throw new Error('test: this report cannot be written yet');
    },
  },
});

const row = async (core: Core, id: string) => (await rowOf(core, id))!;
const paymentOf = async (core: Core, txSignature: string) => {
  const p = await core.store.repos.payments.findByTx(CHAIN, txSignature);
  return p ? { status: p.status, reason: p.reason, intentId: p.intentId, from: p.from } : null;
};
const hash = () => `0x${crypto.randomUUID().replaceAll('-', '').padEnd(64, '0')}`;
const PAYER_1 = '0x2222222222222222222222222222222222222222';
const PAYER_2 = '0x3333333333333333333333333333333333333333';

/** A pending intent whose transaction has its write-ahead record, as submit leaves it. */
async function submitted(core: Core): Promise<StoredIntent> {
  const i = await pendingIntent(core);
  await core.runtime.write(async (tx) => {
    await tx.repos.submissions.record({
      intentId: i.id, chain: CHAIN, txSignature: i.txSignature!, signer: PAYER_1, signedTransaction: 'c2lnbmVkIGJ5dGVz',
      watchData: i.watchData, source: 'submit', status: 'sent', createdAt: tx.now,
    });
  });
  return i;
}

/** Another transfer paying the intent, found by detection (by receiver, amount and sender). */
const transfer = (i: StoredIntent, txSignature: string): FoundTransfer => ({
  chain: CHAIN, txSignature, tokenAddress: i.tokenAddress, from: PAYER_2, to: i.requestor, amountBaseUnits: i.amountBaseUnits,
  references: [], landedAt: Date.now(), commitment: 'confirmed', watchData: { seenBlock: 7 },
});

describe('a watcher report about a transaction the intent no longer follows', () => {
  it('queued while its write fails: tx1 finalized, written after detection moved the intent to tx2, is a duplicate payment, not tx2 finalized', async () => {
    const { core, watcher } = await start();
    const i = await submitted(core);
    await until(() => watcher.watched.get(i.id)?.txSignature === i.txSignature, 'tx1 watched');
    blocked.add(i.id);
    watcher.say(i.id, 'finalized');
    await until(() => tries.some((t) => t.intentId === i.id && t.type === 'finalized'), 'the report tried and failed');

    // Meanwhile detection finds another transfer paying the intent: it follows that one now.
    const tx2 = hash();
    expect((await recordFoundTransfer(core.services, transfer(i, tx2))).outcome).toBe('recorded');
    expect(await row(core, i.id)).toMatchObject({ state: 'confirmed', txSignature: tx2 });
    await until(() => watcher.watched.get(i.id)?.txSignature === tx2, 'tx2 watched');

    blocked.delete(i.id);
    const dup = await until(() => paymentOf(core, i.txSignature!), 'the old transaction recorded');
    expect(dup).toEqual({ status: 'unmatched', reason: 'duplicate', intentId: i.id, from: PAYER_1 });
    expect(await row(core, i.id)).toMatchObject({ state: 'confirmed', txSignature: tx2 });
    expect(await paymentOf(core, tx2)).toMatchObject({ status: 'matched', intentId: i.id });
    expect(await eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'payment.unmatched']);
  });

  for (const verdict of ['dropped', 'failed'] as const) {
    it(`decided for tx1 before the row moved to tx2 (then tx2 reorged back to pending): ${verdict} is not applied to tx2`, async () => {
      const { core, watcher } = await start();
      const i = await submitted(core);
      const old = await until(() => watcher.watched.get(i.id), 'tx1 watched');
      const tx2 = hash();
      await recordFoundTransfer(core.services, transfer(i, tx2));
      await until(() => watcher.watched.get(i.id)?.txSignature === tx2, 'tx2 watched');
      watcher.say(i.id, 'reorged');
      await until(async () => (await row(core, i.id)).state === 'pending', 'tx2 reorged: pending');

      // The watcher's tick decided tx1 before the move and emits it now.
      watcher.sayAbout(old, verdict);
      await until(async () => (await core.store.repos.submissions.findByTx(CHAIN, i.txSignature!))?.outcome === verdict, 'tx1 outcome recorded');
      expect(await row(core, i.id)).toMatchObject({ state: 'pending', txSignature: tx2, retryRequired: false, failureReason: null });
      expect(await eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.pending']);
      // tx2 is still the one followed, and its own verdict still applies.
      expect(watcher.watched.get(i.id)?.txSignature).toBe(tx2);
      watcher.say(i.id, 'confirmed');
      await until(async () => (await row(core, i.id)).state === 'confirmed', 'tx2 confirmed');
    });
  }

  it('an EVM repriced copy reported under its own hash about the followed transaction still pays the intent', async () => {
    const { core, watcher } = await start();
    const i = await submitted(core);
    const item = await until(() => watcher.watched.get(i.id), 'tx1 watched');
    const copy = hash();
    watcher.sayAbout(item, 'confirmed', copy);
    await until(async () => (await row(core, i.id)).state === 'confirmed', 'confirmed under the copy');
    // The same tick's next verdict, still about the item it was decided for.
    watcher.sayAbout(item, 'finalized', copy);
    await until(async () => (await row(core, i.id)).state === 'finalized', 'finalized under the copy');
    expect((await row(core, i.id)).txSignature).toBe(copy);
    expect(await paymentOf(core, copy)).toBeNull();
    expect(await eventTypesOf(core, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
  });
});
