// The chain watch's passes over every followed intent (a full scan's sync, a lost shard's drop)
// run a chunk per turn of the event loop. On a real core (either store) with a scripted watcher and
// more followed transactions than a chunk: an intent followed while a full sync is under way (by
// another path: a commit, the look-back's follows, another scan) is not dropped by it, one handed
// over by a newer commit keeps that, and the rest is exactly what one pass in one step gave.
import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/compose';
import { newId } from '../../src/domain/ids';
import type { StoredIntent } from '../../src/store/intents';
import { pendingIntent, scriptedCores, until } from '../support/core';

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

async function watching(): Promise<{ core: Core; watched: Map<string, unknown>; rows: StoredIntent[]; base: StoredIntent }> {
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
});
