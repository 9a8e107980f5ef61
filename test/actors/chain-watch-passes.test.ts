// The chain watch's passes over every followed intent (a full scan's sync, a lost shard's drop)
// run a chunk per turn of the event loop. On a real core (either store) with a scripted watcher and
// more followed transactions than a chunk: an intent followed while a full sync is under way (by
// another path: a commit, the look-back's follows, another scan) is not dropped by it, one handed
// over by a newer commit keeps that, and the rest is exactly what one pass in one step gave.
import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/compose';
import type { FoundTransfer, WatchItem } from '../../src/chains/types';
import { newId } from '../../src/domain/ids';
import { recordFoundTransfer } from '../../src/intents/record-found-transfer';
import type { StoredIntent } from '../../src/store/intents';
import { CHAIN, pendingIntent, rowOf, scriptedCores, until } from '../support/core';

const { start } = scriptedCores(() => {});

/** More than one chunk (2,000) of each pass. */
const N = 4_500;
const turn = () => new Promise<void>((r) => setImmediate(r));

/** `n` copies of a real pending row under new ids and transactions (the chain watch reads rows, not the database). */
function copies(row: StoredIntent, n: number): StoredIntent[] {
  return Array.from({ length: n }, () => {
    const id = newId('pi');
    return { ...row, id, snapshot: row.snapshot.replaceAll(row.id, id), txSignature: `0x${crypto.randomUUID().replaceAll('-', '').padEnd(64, '0')}` };
  });
}

async function watching(): Promise<{ core: Core; watched: Map<string, WatchItem>; rows: StoredIntent[]; base: StoredIntent }> {
  const { core, watcher } = await start();
  const base = await pendingIntent(core);
  await until(() => watcher.watched.has(base.id), 'the pending intent watched');
  const rows = copies(base, N);
  core.chainWatch.sync(rows);
  expect(watcher.watched.size).toBe(N + 1);
  return { core, watched: watcher.watched, rows, base };
}

describe('the chain watch a chunk per turn', () => {
  it('a full sync: what is followed while it runs stays, a newer commit wins, the rest is dropped as in one step', async () => {
    const { core, watched, rows, base } = await watching();
    const [late] = copies(base, 1);
    const gone = rows.slice(0, 100); // closed elsewhere: absent from the scan's rows
    const newer = rows[100]!; // absent too, but a commit handed it over after the scan read it
    const full = rows.slice(101);
    let done = false;
    // Runs between the pass's first chunk and its next (queued before the pass's own turn).
    let doneAtTurn: boolean | null = null;
    setImmediate(() => {
      doneAtTurn = done;
      core.chainWatch.sync([late!]);
    });
    await core.chainWatch.syncAll(full, (id) => id === newer.id).then(() => (done = true));
    expect(doneAtTurn).toBe(false);
    expect(watched.has(late!.id)).toBe(true);
    expect(watched.has(newer.id)).toBe(true);
    for (const r of gone) expect(watched.has(r.id)).toBe(false);
    expect(watched.has(base.id)).toBe(false);
    for (const r of full) expect(watched.has(r.id)).toBe(true);
    expect(core.chainWatch.watchedCount()).toBe(full.length + 2);
  });

  it("a lost shard's drop: a chunk per turn, asked as it reaches each intent", async () => {
    const { core, watched, rows, base } = await watching();
    const lost = new Set(rows.filter((_, i) => i % 2 === 0).map((r) => r.id));
    const takenBack = new Set<string>();
    let visits = 0;
    const drop = core.chainWatch.dropWhere((id) => (visits++, lost.has(id) && !takenBack.has(id)));
    await turn();
    const visitsAtTurn = visits;
    // Taken back between two chunks: the intents visited from then on stay.
    for (const id of lost) takenBack.add(id);
    await drop;
    expect(visitsAtTurn).toBeGreaterThan(0);
    expect(visitsAtTurn).toBeLessThan(N + 1);
    expect(visits).toBe(N + 1);
    const droppedNow = rows.filter((r) => lost.has(r.id) && !watched.has(r.id));
    expect(droppedNow.length).toBeGreaterThan(0);
    expect(droppedNow.length).toBeLessThan(lost.size);
    for (const r of rows) if (!lost.has(r.id)) expect(watched.has(r.id)).toBe(true);
    expect(watched.has(base.id)).toBe(true);
  });

  it("a full sync under way when a commit moves an intent to another transaction: the scan's older copy is not followed again, and the old transaction's verdict does not land on the new one", async () => {
    const { core, watched, rows, base } = await watching();
    const tx1 = base.txSignature!;
    // Detection finds another transfer paying the intent: the row follows tx2 (a real commit).
    const tx2 = `0x${crypto.randomUUID().replaceAll('-', '').padEnd(64, '1')}`;
    const found: FoundTransfer = {
      chain: CHAIN, txSignature: tx2, tokenAddress: base.tokenAddress, from: '0x3333333333333333333333333333333333333333', to: base.requestor,
      amountBaseUnits: base.amountBaseUnits, references: [], landedAt: Date.now(), commitment: 'confirmed', watchData: { seenBlock: 7 },
    };
    expect((await recordFoundTransfer(core.services, found)).outcome).toBe('recorded');
    const moved = (await rowOf(core, base.id))!;
    expect(moved).toMatchObject({ state: 'confirmed', txSignature: tx2 });
    // Replayed in memory as if that commit landed while the pass runs (deterministic: between its
    // first chunk and its next): memory follows tx1 when the pass starts, the scan's copy (read
    // before the move) says tx1, and the commit's hand-over of tx2 comes between two chunks.
    core.chainWatch.sync([base]);
    expect(watched.get(base.id)?.txSignature).toBe(tx1);
    setImmediate(() => core.chainWatch.sync([moved]));
    // The copy after the first chunk (2,000): the pass reaches it after the hand-over.
    await core.chainWatch.syncAll([...rows.slice(0, 3_000), base, ...rows.slice(3_000)]);
    expect(watched.get(base.id)?.txSignature).toBe(tx2);
    // tx1's verdict decided before the move (emitted now): not applied to tx2.
    await core.chainWatch.report({ intentId: base.id, txSignature: tx1, follows: tx1, type: 'dropped' });
    expect(await rowOf(core, base.id)).toMatchObject({ state: 'confirmed', txSignature: tx2 });
    // tx2's own verdict still applies.
    await core.chainWatch.report({ intentId: base.id, txSignature: tx2, follows: tx2, type: 'finalized' });
    await until(async () => (await rowOf(core, base.id))?.state === 'finalized', 'tx2 finalized');
  });
});
