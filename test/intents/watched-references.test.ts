// The Solana references a detector searches, read cheaply between full reads
// (src/intents/watched-references.ts), on both engines' real DetectionRepo: every poll's answer
// holds every reference the exact read (DetectionRepo.references over the whole look-back) gives;
// a full refresh gives the exact answer again; between refreshes only the recent closes are read.
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchedReference } from '../../src/store/detection';
import { LATE_COMMIT_MARGIN_MS } from '../../src/intents/watched-receivers';
import { watchedReferences } from '../../src/intents/watched-references';
import { storedIntent } from '../support/db';
import { ENGINES, engineStore, type EngineStore } from '../support/engines';

let open: EngineStore | null = null;
afterEach(async () => {
  await open?.dispose();
  open = null;
});

const CHAIN = 'solana:devnet';
const sol = { chain: CHAIN, requestor: 'Req1', tokenAddress: 'Mint1' };
const LOOKBACK = 1_000_000;
const REFRESH = LOOKBACK / 10;
const refsOf = (list: WatchedReference[]) => list.map((r) => r.reference).sort();

describe.each(ENGINES)('watched references (%s)', (engine) => {
  it('between refreshes: a superset of the exact read; a refresh is exact again', async () => {
    const { intents, detection } = (open = await engineStore(engine)).store.repos;
    let clock = 10_000_000;
    const reads: number[] = [];
    const poll = watchedReferences(async (closedSince) => (reads.push(closedSince), detection.references(CHAIN, closedSince)), LOOKBACK, () => clock);
    const exact = () => detection.references(CHAIN, clock - LOOKBACK);
    // a live; b closed well inside the look-back; c closed just inside it (leaves it soon);
    // d closed long ago; e has no reference.
    const a = storedIntent({ ...sol, solanaReference: 'refA', state: 'created', createdAt: clock - 50 });
    await intents.insert(a);
    await intents.insert(storedIntent({ ...sol, solanaReference: 'refB', state: 'expired', createdAt: clock - 300_000, updatedAt: clock - 200_000 }));
    await intents.insert(storedIntent({ ...sol, solanaReference: 'refC', state: 'cancelled', createdAt: clock - 999_000, updatedAt: clock - 990_000 }));
    await intents.insert(storedIntent({ ...sol, solanaReference: 'refD', state: 'expired', createdAt: clock - 3_000_000, updatedAt: clock - 2_000_000 }));
    await intents.insert(storedIntent({ ...sol, state: 'created', createdAt: clock - 40 }));

    const first = await poll();
    expect(first).toEqual(await exact());
    expect(refsOf(first)).toEqual(['refA', 'refB', 'refC']);
    expect(reads).toEqual([clock - LOOKBACK]);

    // A second later: f created and closed meanwhile (never seen live), g created live, a closes;
    // only the live rows and the recent closes are read.
    clock += 1_000;
    await intents.insert(storedIntent({ ...sol, solanaReference: 'refF', state: 'cancelled', createdAt: clock - 500, updatedAt: clock - 400 }));
    await intents.insert(storedIntent({ ...sol, solanaReference: 'refG', state: 'created', createdAt: clock - 300 }));
    await intents.update({ ...a, state: 'expired', updatedAt: clock - 100 });
    const second = await poll();
    expect(reads[1]).toBe(clock - 1_000 - LATE_COMMIT_MARGIN_MS);
    expect(refsOf(second)).toEqual(refsOf(await exact()));
    expect(refsOf(second)).toEqual(['refA', 'refB', 'refC', 'refF', 'refG']);

    // Past c's look-back but before the refresh: c is still listed (wider, never narrower), each row once.
    clock += 20_000;
    const third = await poll();
    expect(reads[2]).toBe(clock - 20_000 - LATE_COMMIT_MARGIN_MS);
    expect(refsOf(await exact())).toEqual(['refA', 'refB', 'refF', 'refG']);
    expect(refsOf(third)).toEqual(['refA', 'refB', 'refC', 'refF', 'refG']);
    for (const w of await exact()) expect(third).toContainEqual(w);

    // At the refresh: the whole look-back read again, exact (c gone).
    clock += REFRESH;
    expect(await poll()).toEqual(await exact());
    expect(reads[3]).toBe(clock - LOOKBACK);
    expect(refsOf(await poll())).toEqual(['refA', 'refB', 'refF', 'refG']);
  });

  it('a look-back of zero (or one shorter than ten polls) reads the whole look-back every poll', async () => {
    const { detection } = (open = await engineStore(engine)).store.repos;
    const reads: number[] = [];
    const poll = watchedReferences(async (since) => (reads.push(since), detection.references(CHAIN, since)), 0, () => 5);
    await poll();
    await poll();
    expect(reads).toEqual([5, 5]);
  });
});
