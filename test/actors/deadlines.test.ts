// src/actors/deadlines.ts with a few thousand intents (its `armed` map is sharded, sharded.ts):
// due deadlines fire in order of their time, a disarmed one never fires, a re-armed one fires
// once at its latest time, and one not yet due waits. The clock is the test's own (`now`); the
// timer is real, so the test polls until what is due has fired (no fixed sleep).
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids';
import { createDeadlines } from '../../src/actors/deadlines';

async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('deadlines', () => {
  it('fires what is due in order of time, never a disarmed one, a re-armed one once at its latest time', async () => {
    let clock = 1_000_000;
    const fired: string[] = [];
    const d = createDeadlines((id) => void fired.push(id), () => clock);
    const ids = Array.from({ length: 3_000 }, () => newId('pi'));
    // Distinct times, not in id order: a deterministic shuffle of 0..2999 (997 is prime to 3000).
    const at = new Map(ids.map((id, i) => [id, 10_000 + ((i * 997) % 3_000) * 10]));
    for (const id of ids) d.arm(id, at.get(id)!);
    expect(d.size()).toBe(3_000);
    const disarmed = ids.filter((_, i) => i % 3 === 0);
    for (const id of disarmed) d.disarm(id);
    // Every seventh (kept) one moved: later or earlier, still distinct from every other time.
    const moved = ids.filter((_, i) => i % 3 !== 0 && i % 7 === 0);
    moved.forEach((id, k) => {
      at.set(id, k % 2 ? at.get(id)! + 5 : at.get(id)! - 3);
      d.arm(id, at.get(id)!);
    });
    expect(d.size()).toBe(2_000);
    const kept = ids.filter((_, i) => i % 3 !== 0);
    const expected = [...kept].sort((a, b) => at.get(a)! - at.get(b)!);
    await until(() => fired.length === kept.length, 'every kept deadline to fire');
    expect(fired).toEqual(expected);
    expect(d.size()).toBe(0);

    // Not yet due: nothing fires until the clock passes it.
    const later = Array.from({ length: 500 }, () => newId('pi'));
    later.forEach((id, i) => d.arm(id, clock + 2 + i));
    await new Promise((r) => setImmediate(r));
    expect(fired.length).toBe(kept.length);
    clock += 1_000;
    await until(() => fired.length === kept.length + later.length, 'the later deadlines to fire');
    expect(fired.slice(kept.length)).toEqual(later);
    d.stop();
  });

  it('fires many overdue ones a few per turn of the event loop, still in order of time', async () => {
    // After downtime every live intent may be overdue: each is a write, so not all in one step.
    const clock = 1_000_000;
    const runs: number[] = [];
    const fired: string[] = [];
    let inRun = false;
    const d = createDeadlines((id) => {
      fired.push(id);
      // One synchronous run of the timer's callback: its calls share a microtask checkpoint.
      if (!inRun) {
        inRun = true;
        runs.push(0);
        queueMicrotask(() => (inRun = false));
      }
      runs[runs.length - 1]!++;
    }, () => clock);
    const ids = Array.from({ length: 1_000 }, () => newId('pi'));
    const at = new Map(ids.map((id, i) => [id, 1_000 + ((i * 7) % 1_000)]));
    for (const id of ids) d.arm(id, at.get(id)!);
    await until(() => fired.length === ids.length, 'every overdue deadline to fire');
    expect(Math.max(...runs)).toBeLessThanOrEqual(32);
    expect(runs.length).toBeGreaterThanOrEqual(1_000 / 32);
    expect(fired).toEqual([...ids].sort((a, b) => at.get(a)! - at.get(b)!));
    d.stop();
  });

  it('after every deadline is disarmed at once (a lost lease), the stale entries go a chunk per turn: what is armed next still fires, in order, and none of the disarmed', async () => {
    let clock = 1_000_000;
    const fired: string[] = [];
    const d = createDeadlines((id) => void fired.push(id), () => clock);
    const old = Array.from({ length: 5_000 }, () => newId('pi'));
    // Some overdue already (a storm under way when the lease went), the rest later.
    old.forEach((id, i) => d.arm(id, (i % 2 ? 2_000_000 : 500_000) + i));
    for (const id of old) d.disarm(id);
    const fresh = [newId('pi'), newId('pi'), newId('pi')];
    d.arm(fresh[2]!, 1_000_020);
    d.arm(fresh[0]!, 900_000);
    d.arm(fresh[1]!, 1_000_010);
    expect(d.size()).toBe(3);
    await until(() => fired.length === 1, 'the overdue one to fire');
    clock = 1_000_030;
    d.arm(newId('pi'), 5_000_000); // any arm: the timer is set again from the new time
    await until(() => fired.length === 3, 'the other two to fire');
    expect(fired).toEqual(fresh);
    clock = 3_000_000;
    d.arm(fresh[0]!, 2_999_999);
    await until(() => fired.length === 4, 'a re-armed one to fire');
    expect(fired.filter((id) => old.includes(id))).toEqual([]);
    d.stop();
  });

  it('keeps at most 64 expiry writes in flight, and fires the rest as they settle', async () => {
    const clock = 1_000_000;
    const fired: string[] = [];
    const pending: Array<() => void> = [];
    const d = createDeadlines((id) => {
      fired.push(id);
      return new Promise<void>((r) => pending.push(r));
    }, () => clock);
    const ids = Array.from({ length: 200 }, () => newId('pi'));
    ids.forEach((id, i) => d.arm(id, 1_000 + i));
    await until(() => fired.length === 64, 'the first 64 to fire');
    // Several timer turns later (a due timer comes back within ~1 ms): still none beyond the 64.
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 2));
    expect(fired.length).toBe(64);
    // Each write that settles lets another fire, in order, until every one has.
    let done = 0;
    while (fired.length < ids.length || pending.length > 0) {
      const settle = pending.shift();
      if (settle) settle(), done++;
      await new Promise((r) => setImmediate(r));
      expect(fired.length - done).toBeLessThanOrEqual(64);
    }
    expect(fired).toEqual(ids);
    d.stop();
  });
});
