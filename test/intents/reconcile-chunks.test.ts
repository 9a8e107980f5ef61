// Reconciliation goes over the `sending` rows a chunk per turn of the event loop (thousands of them,
// a crash in the middle of a bulk submit, were one step of the loop): on a real core (either store,
// real migrations) with more rows than a chunk, the event loop turns before every write is queued,
// every row is still applied as sent (its intent pending with the transaction), and a row whose
// broadcast is under way in this process is left alone.
import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/actors/runtime';
import { reconcileSubmissions } from '../../src/intents/record-submission';
import { CHAIN, pendingIntent, rowOf, scriptedCores } from '../support/core';

const { start } = scriptedCores(() => {});

/** More than two chunks (250). */
const N = 520;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

describe('reconciliation a chunk per turn', () => {
  it('the event loop turns before every write is queued; every row is applied as sent; one being broadcast is left alone', async () => {
    const { core } = await start();
    const intents = await Promise.all(Array.from({ length: N }, () => pendingIntent(core, {}, false)));
    // `sending` rows left by a process that died mid-broadcast (one transaction, as it wrote them).
    await core.runtime.write(async (tx) => {
      for (const [n, i] of intents.entries()) {
        await tx.repos.submissions.record({
          intentId: i.id, chain: CHAIN, txSignature: hash(n + 1), signer: '0x2222222222222222222222222222222222222222',
          signedTransaction: 'c2lnbmVkIGJ5dGVz', watchData: { nonce: n }, source: 'submit', status: 'sending', createdAt: tx.now,
        });
      }
    });
    // This process is broadcasting the last one right now.
    expect(await core.store.repos.submissions.claimBroadcast(CHAIN, hash(N))).toBe(true);

    let queued = 0;
    const runtime: Runtime = { ...core.runtime, write: (fn, opts) => (queued++, core.runtime.write(fn, opts)) };
    // What was queued at each turn of the event loop while the rows are gone over.
    const atTurns: number[] = [];
    let going = true;
    const tick = () => {
      atTurns.push(queued);
      if (going) setImmediate(tick);
    };
    setImmediate(tick);
    const { applied } = await reconcileSubmissions({ ...core.services, runtime });
    going = false;
    expect(queued).toBe(N - 1);
    // A turn of the event loop came after some writes were queued and before the last one (on
    // SQLite, whose repositories answer synchronously, only the chunks make such a turn).
    expect(atTurns.some((q) => q > 0 && q < N - 1), String(atTurns.slice(0, 20))).toBe(true);
    expect(await applied).toBe(N - 1);

    for (const [n, i] of intents.entries()) {
      const row = await rowOf(core, i.id);
      const sub = await core.store.repos.submissions.findByTx(CHAIN, hash(n + 1));
      if (n === N - 1) {
        expect(row).toMatchObject({ state: 'created', txSignature: null });
        expect(sub?.status).toBe('sending');
      } else {
        expect(row, i.id).toMatchObject({ state: 'pending', txSignature: hash(n + 1) });
        expect(sub?.status).toBe('sent');
      }
    }
  });
});
