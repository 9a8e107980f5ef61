// The receivers a detector watches, read cheaply between full reads (src/intents/watched-receivers.ts),
// on both engines' real DetectionRepo: every poll's answer holds every receiver the exact read
// (DetectionRepo.receivers over the whole look-back) gives, with a `since` never later; a full
// refresh gives the exact answer again; between refreshes only the recent closes are read. The
// whole read in pages (wholeReceivers) gives the exact answer whatever the page size, with ties in
// every index column, and misses nothing that closes between two pages.
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchedReceiver } from '../../src/store/detection';
import { LATE_COMMIT_MARGIN_MS, watchedReceivers, wholeReceivers } from '../../src/intents/watched-receivers';
import { storedIntent } from '../support/db';
import { ENGINES, engineStore, type EngineStore } from '../support/engines';

let open: EngineStore | null = null;
afterEach(async () => {
  await open?.dispose();
  open = null;
});

const CHAIN = 'eip155:84532';
const TOKEN = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const LOOKBACK = 1_000_000;
const REFRESH = LOOKBACK / 10;
const requestor = (n: number) => `0x${String(n).padStart(40, '0')}`;

describe.each(ENGINES)('watched receivers (%s)', (engine) => {
  it('between refreshes: a superset of the exact read, since never later; a refresh is exact again', async () => {
    const { intents, detection } = (open = await engineStore(engine)).store.repos;
    let clock = 10_000_000;
    const reads: number[] = [];
    const poll = watchedReceivers(async (closedSince) => (reads.push(closedSince), detection.receivers(CHAIN, closedSince)), LOOKBACK, () => clock);
    const exact = () => detection.receivers(CHAIN, clock - LOOKBACK);
    const covers = (got: WatchedReceiver[], want: WatchedReceiver[]) => {
      for (const w of want) {
        const g = got.find((r) => r.requestor === w.requestor && r.tokenAddress === w.tokenAddress);
        expect(g, `${w.requestor} watched`).toBeDefined();
        expect(g!.since).toBeLessThanOrEqual(w.since);
      }
    };
    // r1 live; r2 closed well inside the look-back; r3 closed just inside it (leaves it soon).
    await intents.insert(storedIntent({ requestor: requestor(1), tokenAddress: TOKEN, state: 'created', createdAt: clock - 50 }));
    await intents.insert(storedIntent({ requestor: requestor(2), tokenAddress: TOKEN, state: 'expired', createdAt: clock - 300_000, updatedAt: clock - 200_000 }));
    await intents.insert(storedIntent({ requestor: requestor(3), tokenAddress: TOKEN, state: 'cancelled', createdAt: clock - 999_000, updatedAt: clock - 990_000 }));

    expect(await poll()).toEqual(await exact());
    expect(reads).toEqual([clock - LOOKBACK]);

    // A second later: r4 created and closed meanwhile (never seen live), r1 closes with an earlier
    // created intent of its receiver; only the recent closes are read.
    clock += 1_000;
    await intents.insert(storedIntent({ requestor: requestor(4), tokenAddress: TOKEN, state: 'cancelled', createdAt: clock - 500, updatedAt: clock - 400 }));
    await intents.insert(storedIntent({ requestor: requestor(1), tokenAddress: TOKEN, state: 'expired', createdAt: clock - 7_000, updatedAt: clock - 100 }));
    const second = await poll();
    expect(reads[1]).toBe(clock - 1_000 - LATE_COMMIT_MARGIN_MS);
    expect(second).toEqual(await exact());

    // Past r3's look-back but before the refresh: r3 is still watched (wider, never narrower).
    clock += 20_000;
    const third = await poll();
    expect(reads[2]).toBe(clock - 20_000 - LATE_COMMIT_MARGIN_MS);
    covers(third, await exact());
    expect((await exact()).map((r) => r.requestor)).not.toContain(requestor(3));
    expect(third.map((r) => r.requestor)).toEqual([requestor(1), requestor(2), requestor(3), requestor(4)]);

    // At the refresh: the whole look-back read again, exact (r3 gone).
    clock += REFRESH;
    expect(await poll()).toEqual(await exact());
    expect(reads[3]).toBe(clock - LOOKBACK);
    expect((await poll()).map((r) => r.requestor)).toEqual([requestor(1), requestor(2), requestor(4)]);
  });

  it('a look-back of zero (or one shorter than ten polls) reads the whole look-back every poll', async () => {
    const { detection } = (open = await engineStore(engine)).store.repos;
    const reads: number[] = [];
    const poll = watchedReceivers(async (since) => (reads.push(since), detection.receivers(CHAIN, since)), 0, () => 5);
    await poll();
    await poll();
    expect(reads).toEqual([5, 5]);
  });
});

describe.each(ENGINES)('whole receivers read in pages (%s)', (engine) => {
  it('equals the one-piece read for any page size, ties in every index column included', async () => {
    const { intents, detection } = (open = await engineStore(engine)).store.repos;
    // Few distinct values per column, so many closed intents share updated_at, receiver, token,
    // created_at and state, and pages end in the middle of such ties.
    const tokens = [TOKEN, '0x0000000000000000000000000000000000000001'];
    const closed = ['expired', 'cancelled', 'failed'] as const;
    let x = 11;
    const next = (n: number) => ((x = (x * 1103515245 + 12345) % 2147483648), x % n);
    for (let i = 0; i < 90; i++) {
      await intents.insert(storedIntent({
        requestor: requestor(1 + next(3)), tokenAddress: tokens[next(2)]!, state: closed[next(3)]!,
        createdAt: 100 + next(3), updatedAt: 1_000 + 100 * next(3),
      }));
    }
    await intents.insert(storedIntent({ requestor: requestor(9), tokenAddress: TOKEN, state: 'created', createdAt: 50 }));
    await intents.insert(storedIntent({ requestor: requestor(1), tokenAddress: TOKEN, state: 'pending', createdAt: 99 }));
    for (const since of [0, 1_100, 1_200, 5_000]) {
      const exact = await detection.receivers(CHAIN, since);
      for (const limit of [1, 2, 7, 1_000]) {
        let pauses = 0;
        const paged = await wholeReceivers(detection, CHAIN, since, async () => void pauses++, limit);
        expect(paged, `since ${since}, pages of ${limit}`).toEqual(exact);
        // SQLite reads the closed half in pages (PostgreSQL groups it in its own process: one page).
        if (engine === 'sqlite' && since === 0) expect(pauses).toBe(Math.floor(90 / limit));
      }
    }
  });
});

describe('whole receivers read in pages (sqlite, writes between pages)', () => {
  it('an intent that closes, or is created and closed, between two pages is in the answer', async () => {
    const { intents, detection } = (open = await engineStore('sqlite')).store.repos;
    for (let i = 0; i < 20; i++) await intents.insert(storedIntent({ requestor: requestor(1), tokenAddress: TOKEN, state: 'expired', createdAt: 100 + i, updatedAt: 1_000 + i }));
    const live = storedIntent({ requestor: requestor(2), tokenAddress: TOKEN, state: 'created', createdAt: 200 });
    await intents.insert(live);
    let pauses = 0;
    const got = await wholeReceivers(detection, CHAIN, 0, async () => {
      if (pauses++ !== 0) return;
      // After the first page: the live intent closes (its update moves it past every page read),
      // and one never seen live is created and closed.
      await intents.update({ ...live, state: 'cancelled', updatedAt: 2_000 });
      await intents.insert(storedIntent({ requestor: requestor(3), tokenAddress: TOKEN, state: 'cancelled', createdAt: 300, updatedAt: 2_001 }));
    }, 5);
    expect(pauses).toBeGreaterThan(1);
    expect(got).toEqual(await detection.receivers(CHAIN, 0));
    expect(got.map((r) => r.requestor)).toEqual([requestor(1), requestor(2), requestor(3)]);
  });
});
