// The write gate's sync word is notified only while a durability wait is under way
// (src/store/write-gate.ts: a waiter counts itself before it sleeps, synced() notifies only when
// the count is not 0). Here: the count follows the waits exactly, and a wait that began before
// synced() is woken by it (a notify skipped wrongly would leave it asleep for its 1 s bound).
import { describe, expect, it } from 'vitest';
import { createWriteGate } from '../../src/store/write-gate';

const SYNC_SLEEPERS = 6;

describe('write gate: durability waits and the notify of synced()', () => {
  it('counts each wait while it sleeps and wakes it at synced()', async () => {
    const gate = createWriteGate();
    const words = new Int32Array(gate.buffer);
    expect(gate.durable(0)).toBeNull();
    const one = gate.durable(1)!;
    const two = gate.durable(2)!;
    expect(one).not.toBeNull();
    expect(Atomics.load(words, SYNC_SLEEPERS)).toBe(2);
    let twoDone = false;
    void two.then(() => (twoDone = true));
    gate.synced(1);
    await one;
    expect(twoDone).toBe(false);
    // `two` woke too, saw 1 < 2 and sleeps again: still counted.
    await new Promise((r) => setImmediate(r));
    expect(Atomics.load(words, SYNC_SLEEPERS)).toBe(1);
    gate.synced(2);
    await two;
    expect(Atomics.load(words, SYNC_SLEEPERS)).toBe(0);
    // Nobody waiting: no wait and nothing counted.
    gate.synced(3);
    expect(gate.durable(3)).toBeNull();
    expect(Atomics.load(words, SYNC_SLEEPERS)).toBe(0);
  });

  it('a failure wakes every wait and leaves nothing counted', async () => {
    const gate = createWriteGate();
    const words = new Int32Array(gate.buffer);
    const waits = [gate.durable(1)!, gate.durable(5)!];
    gate.failed();
    for (const w of waits) await expect(w).rejects.toThrow('WAL sync failed');
    expect(Atomics.load(words, SYNC_SLEEPERS)).toBe(0);
  });
});
