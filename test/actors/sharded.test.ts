// src/actors/sharded.ts against the plain Set/Map it stands in for: fast-check runs random
// sequences of operations on both and requires the same answer to every one (has, get, size, the
// result of add/set/delete, the entries iterated, as a set: the sharded order is per shard by
// design). Keys: real time-ordered and random ids, and short or empty strings (which all share
// shards). Fixed seed and run counts: the same sequences on every run.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids';
import { ShardedMap, ShardedSet, shardOf } from '../../src/actors/sharded';

const ids = Array.from({ length: 40 }, (_, i) => newId(i % 2 ? 'pi' : 'acct'));
const key = fc.oneof(fc.constantFrom(...ids), fc.string({ maxLength: 3 }), fc.constantFrom('', 'a', 'pi_'));
type Op =
  | { op: 'add'; k: string; v: number }
  | { op: 'delete'; k: string }
  | { op: 'has'; k: string }
  | { op: 'clear' }
  | { op: 'iterateDeleting'; every: number };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ op: fc.constant('add' as const), k: key, v: fc.integer() }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('delete' as const), k: key }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('has' as const), k: key }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('iterateDeleting' as const), every: fc.integer({ min: 1, max: 4 }) }) },
);
const sorted = <T>(xs: Iterable<T>) => [...xs].sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
const params = { seed: 1024, numRuns: 300 };

describe('ShardedSet', () => {
  it('answers every operation as a plain Set does', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const plain = new Set<string>();
        const sharded = new ShardedSet();
        for (const o of ops) {
          if (o.op === 'add') expect(sharded.add(o.k)).toBe(sharded), plain.add(o.k);
          else if (o.op === 'delete') expect(sharded.delete(o.k)).toBe(plain.delete(o.k));
          else if (o.op === 'has') expect(sharded.has(o.k)).toBe(plain.has(o.k));
          else if (o.op === 'clear') sharded.clear(), plain.clear();
          else {
            // Deleting the entry being visited, as the runtime's scan does: every entry is still visited once.
            let n = 0;
            const seen: string[] = [];
            for (const k of sharded) {
              seen.push(k);
              if (++n % o.every === 0) sharded.delete(k), plain.delete(k);
            }
            expect(sorted(seen)).toEqual(sorted(new Set(seen)));
            expect(seen.length).toBe(n);
          }
          expect(sharded.size).toBe(plain.size);
        }
        expect(sorted(sharded)).toEqual(sorted(plain));
      }),
      params,
    );
  });
});

describe('ShardedMap', () => {
  it('answers every operation as a plain Map does', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const plain = new Map<string, number>();
        const sharded = new ShardedMap<number>();
        for (const o of ops) {
          if (o.op === 'add') expect(sharded.set(o.k, o.v)).toBe(sharded), plain.set(o.k, o.v);
          else if (o.op === 'delete') expect(sharded.delete(o.k)).toBe(plain.delete(o.k));
          else if (o.op === 'has') expect([sharded.has(o.k), sharded.get(o.k)]).toEqual([plain.has(o.k), plain.get(o.k)]);
          else if (o.op === 'clear') sharded.clear(), plain.clear();
          else {
            let n = 0;
            for (const [k, v] of sharded) {
              expect(v).toBe(plain.get(k));
              if (++n % o.every === 0) sharded.delete(k), plain.delete(k);
            }
          }
          expect(sharded.size).toBe(plain.size);
        }
        expect(sorted([...sharded].map(([k, v]) => `${k}=${v}`))).toEqual(sorted([...plain].map(([k, v]) => `${k}=${v}`)));
        expect(sorted(sharded.keys())).toEqual(sorted(plain.keys()));
        expect(sorted(sharded.values())).toEqual(sorted(plain.values()));
        expect(sorted(sharded.entries())).toEqual(sorted(plain.entries()));
      }),
      params,
    );
  });
});

describe('shardOf', () => {
  it('spreads real ids over all 256 shards, none far above the mean', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 256 * 200; i++) counts[shardOf(newId('pi'))]!++;
    // 200 per shard on average: a shard with none, or twice the mean, would be a broken hash.
    expect(Math.min(...counts)).toBeGreaterThan(100);
    expect(Math.max(...counts)).toBeLessThan(400);
  });
  it('takes any string, the short ones included', () => {
    for (const k of ['', 'a', 'ab', 'pi_', '\u{1F600}']) expect(shardOf(k)).toBeGreaterThanOrEqual(0);
    for (const k of ['', 'a', 'ab', 'pi_', '\u{1F600}']) expect(shardOf(k)).toBeLessThan(256);
  });
});
