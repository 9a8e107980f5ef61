// Sets and Maps keyed by intent id that may hold every live intent (100k and more), split over
// SHARDS plain ones. Why: JavaScriptCore grows (and shrinks) a Set's or Map's table by rehashing
// every entry in ONE step, on the event loop: one add at 98,304 entries held it 11-15 ms, at
// 196,608 ~29 ms (bench/live-set, bench/RESULTS.md), and a server whose live intents cross those
// sizes stalls every request in flight that long. Split, each table holds ~1/256 of the entries,
// so a rehash moves a few hundred at a time; the total work is the same, spread over many adds.
//
// The shard is picked from the key's last characters: ids end in random base62 (src/domain/ids.ts;
// the leading ones are the clock), so that is cheap and even. Any string works as a key (a
// skewed tail only fills fewer shards). Iteration goes shard by shard, each in insertion order:
// NOT the global insertion order (no caller here needs it). As with a plain Set, an entry may be
// deleted while iterating; one added meanwhile may or may not be visited.

const SHARDS = 256;

/** The shard of a key: its last three characters mixed (base62 ids: 238,328 combinations). */
export function shardOf(key: string): number {
  const n = key.length;
  // Past the start charCodeAt is NaN, and NaN | 0 is 0: short keys simply share shards.
  return ((key.charCodeAt(n - 1) * 961 + key.charCodeAt(n - 2) * 31 + key.charCodeAt(n - 3)) | 0) & (SHARDS - 1);
}

/** What both share: SHARDS tables, the key's shard, a count kept so `size` is O(1). */
abstract class Sharded<T extends Set<string> | Map<string, unknown>> {
  protected readonly shards: T[];
  protected count = 0;

  constructor(make: () => T) {
    this.shards = Array.from({ length: SHARDS }, make);
  }
  get size(): number {
    return this.count;
  }
  protected shard(key: string): T {
    return this.shards[shardOf(key)]!;
  }
  has(key: string): boolean {
    return this.shard(key).has(key);
  }
  delete(key: string): boolean {
    const gone = this.shard(key).delete(key);
    if (gone) this.count--;
    return gone;
  }
  clear(): void {
    for (const s of this.shards) s.clear();
    this.count = 0;
  }
}

export class ShardedSet extends Sharded<Set<string>> implements Iterable<string> {
  constructor() {
    super(() => new Set<string>());
  }
  add(key: string): this {
    const s = this.shard(key);
    const before = s.size;
    this.count += s.add(key).size - before;
    return this;
  }
  *[Symbol.iterator](): IterableIterator<string> {
    for (const s of this.shards) yield* s;
  }
}

export class ShardedMap<V> extends Sharded<Map<string, V>> implements Iterable<[string, V]> {
  constructor() {
    super(() => new Map<string, V>());
  }
  get(key: string): V | undefined {
    return this.shard(key).get(key);
  }
  set(key: string, value: V): this {
    const m = this.shard(key);
    const before = m.size;
    this.count += m.set(key, value).size - before;
    return this;
  }
  *entries(): IterableIterator<[string, V]> {
    for (const m of this.shards) yield* m;
  }
  *keys(): IterableIterator<string> {
    for (const m of this.shards) yield* m.keys();
  }
  *values(): IterableIterator<V> {
    for (const m of this.shards) yield* m.values();
  }
  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }
}
