// The longest single step of the collections that hold every live intent on the event loop:
// a plain Set + Map (what runtime.ts `live` and deadlines.ts `armed` were) beside the sharded
// ones (src/actors/sharded.ts), alternated in one run. JavaScriptCore rehashes a whole table in
// one add (growth) or delete (shrink), so the worst single operation, not the mean, is the figure.
// Three shapes, each on a fresh collection, with real time-ordered ids (~12 per ms, as under
// bench/create): grow 0 -> N; churn at N/2 (add one, delete the oldest); shrink N -> 0. Also the
// deadline heap's array push (deadlines.ts) grown to N. Not timed in any test.
//   bun bench/live-set/run.ts          (BENCH_N=200000 BENCH_ROUNDS=3)
import { newId } from '../../src/domain/ids';
import { ShardedMap, ShardedSet, shardOf } from '../../src/actors/sharded';

const N = Number(process.env.BENCH_N ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SLOW_MS = 1;

const t0 = Date.now();
const ids = Array.from({ length: N * 2 }, (_, i) => newId('pi', 24, t0 + i / 12));

interface Pair {
  add(id: string, v: number): void;
  del(id: string): void;
}
const kinds: Record<string, () => Pair> = {
  plain: () => {
    const s = new Set<string>();
    const m = new Map<string, number>();
    return { add: (id, v) => (s.add(id), m.set(id, v)), del: (id) => (s.delete(id), m.delete(id)) };
  },
  sharded: () => {
    const s = new ShardedSet();
    const m = new ShardedMap<number>();
    return { add: (id, v) => (s.add(id), m.set(id, v)), del: (id) => (s.delete(id), m.delete(id)) };
  },
};

interface Worst {
  ms: number;
  at: number;
  slow: number;
  totalMs: number;
}
function timed(n: number, op: (i: number) => void): Worst {
  const w: Worst = { ms: 0, at: 0, slow: 0, totalMs: 0 };
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const a = performance.now();
    op(i);
    const d = performance.now() - a;
    if (d > w.ms) (w.ms = d), (w.at = i);
    if (d > SLOW_MS) w.slow++;
  }
  w.totalMs = performance.now() - start;
  return w;
}

function shapes(kind: string): Record<string, Worst> {
  const out: Record<string, Worst> = {};
  let c = kinds[kind]!();
  out.grow = timed(N, (i) => c.add(ids[i]!, i));
  Bun.gc(true);
  // Churn at N/2: fill (untimed), then each step adds a new id and deletes the oldest.
  c = kinds[kind]!();
  const half = N / 2;
  for (let i = 0; i < half; i++) c.add(ids[i]!, i);
  out.churn = timed(N, (i) => (c.add(ids[half + i]!, i), c.del(ids[i]!)));
  Bun.gc(true);
  c = kinds[kind]!();
  for (let i = 0; i < N; i++) c.add(ids[i]!, i);
  out.shrink = timed(N, (i) => c.del(ids[i]!));
  Bun.gc(true);
  return out;
}

function heapPush(): Worst {
  const heap: Array<[number, string]> = [];
  const w = timed(N, (i) => heap.push([i, ids[i]!]));
  Bun.gc(true);
  return w;
}

const fmt = (w: Worst) => `${w.ms.toFixed(2)} ms at #${w.at.toLocaleString('en-US')} (${w.slow} > ${SLOW_MS} ms; ${((w.totalMs * 1000) / N).toFixed(3)} µs/op)`;
// How even the shards are for these ids (the largest over the mean).
const per = new Array<number>(256).fill(0);
for (let i = 0; i < N; i++) per[shardOf(ids[i]!)]!++;
console.log(`N ${N.toLocaleString('en-US')}, shards: largest ${Math.max(...per)}, smallest ${Math.min(...per)}, mean ${(N / 256).toFixed(0)}`);
console.log(`load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`);
console.log('| round | kind | grow 0 -> N: worst add | churn at N/2: worst add+delete | shrink N -> 0: worst delete |');
console.log('|---|---|---|---|---|');
for (let r = 1; r <= ROUNDS; r++) {
  for (const kind of r % 2 ? ['plain', 'sharded'] : ['sharded', 'plain']) {
    const s = shapes(kind);
    console.log(`| ${r} | ${kind} | ${fmt(s.grow!)} | ${fmt(s.churn!)} | ${fmt(s.shrink!)} |`);
  }
  console.log(`| ${r} | heap array push | ${fmt(heapPush())} | | |`);
}
