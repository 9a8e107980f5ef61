// bench/create-heap: JavaScript heap allocated per create, and by what. Creates go through the
// real app (core.app.handle: authentication, body, validation, the verb, the group-committed
// write on a real SQLite file with a webhook endpoint configured, the 201), 64 in flight, beside
// a bare Request + Response through the same harness (what every request costs before PayForge).
// The process runs with JSC's collector off (BUN_JSC_useGC=false, it re-starts itself so), so
// every cell made during the measured creates is still in the heap when it is counted:
// heapStats() object counts by type and heap capacity before/after, divided by N, are exact
// allocation figures (capacity grows in 16 KiB blocks: +-1 block over N). Not a speed.
// BENCH_GC=1 instead runs the creates with the collector ON and counts its collections of the
// event loop's heap (BUN_JSC_logGC, parsed from the child's stderr): collections, their pauses and
// creates per collection over BENCH_N creates (30,000 by default in this mode). Still not a speed:
// a collection comes every fixed number of bytes allocated (cells and the memory strings, bodies
// and buffers report beside them), so the count per create is what allocation costs in pauses.
// Usage: bun bench/create-heap/run.ts   (BENCH_N measured creates, BENCH_WARMUP before; ROOT=<tree> to measure another checkout)
import { mkdtempSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { env } from '../support/env';

const root = resolve(process.env.ROOT ?? join(import.meta.dir, '../..'));
const GC_MODE = process.env.BENCH_GC === '1';
if (GC_MODE && process.env.CREATE_HEAP_CHILD !== '1') {
  const p = Bun.spawnSync([process.execPath, ...process.argv.slice(1)], { env: { ...process.env, CREATE_HEAP_CHILD: '1', BUN_JSC_logGC: '1' }, stdout: 'inherit', stderr: 'pipe' });
  if (p.exitCode !== 0) process.stderr.write(p.stderr.toString().split('\n').filter((l) => !l.includes('GC')).join('\n'));
  else console.log(collections(p.stderr.toString()));
  process.exit(p.exitCode ?? 1);
}
if (!GC_MODE && process.env.BUN_JSC_useGC !== 'false') {
  const p = Bun.spawnSync([process.execPath, ...process.argv.slice(1)], { env: { ...process.env, BUN_JSC_useGC: 'false' }, stdout: 'inherit', stderr: 'inherit' });
  process.exit(p.exitCode ?? 1);
}

/**
 * The collections of the event loop's heap between the child's marks. JSC logs each collection
 * with its heap's address (`[GC<0x...>: START M <size>kb => EdenCollection ...`, its pauses as
 * `p=<ms>ms` on that heap's lines), a collection that allocation triggered after a line with the
 * bytes allocated since the last one (the cells and the memory strings, bodies and buffers
 * report). The dispatcher's thread has a heap of its own, logging to the same stream: the loop's
 * heap is the largest one that the main thread's forced full collection (between the first two
 * marks) collected. The child marks every 100th create on the same stream (a synchronous write
 * from the main thread, where the loop's collections log too): creates between two of the loop's
 * collections, hence bytes per create as JSC counts them toward the next collection. Lines of two
 * threads can run into each other, so every pattern is searched anywhere in a line.
 */
function collections(log: string): string {
  const lines = log.split('\n');
  const at = (mark: string) => lines.findIndex((l) => l.includes(mark));
  const from = at('@@create-heap start');
  const go = at('@@create-heap go');
  const to = at('@@create-heap end');
  if (from < 0 || go < 0 || to < 0) throw new Error('create-heap: the child did not mark its run');
  const start = /\[GC<(0x[0-9a-f]+)>: START M (\d+)kb => (\w+)Collection/;
  const pauseRe = /\[GC<(0x[0-9a-f]+)>: [^[]*? p=([\d.]+)ms/g;
  let main: string | undefined;
  let largest = -1;
  for (const l of lines.slice(from, go)) {
    const m = start.exec(l);
    if (m && m[3] === 'Full' && Number(m[2]) > largest) [main, largest] = [m[1], Number(m[2])];
  }
  if (!main) throw new Error('create-heap: no full collection between the first two marks');
  let done = 0;
  let pending = 0;
  const gcs: Array<{ at: number; bytes: number }> = [];
  const pauses: number[] = [];
  let byAllocation = 0;
  for (const l of lines.slice(go, to)) {
    const c = /@@create-heap c=(\d+)/.exec(l);
    if (c) done = Number(c[1]);
    const req = /Requesting GC because bytes allocated this cycle: (\d+)/.exec(l);
    if (req) pending = Number(req[1]);
    const s = start.exec(l);
    if (s) {
      // (A collection the allocation did not trigger, a timer's, counts no bytes.)
      if (s[1] === main) {
        gcs.push({ at: done, bytes: pending });
        pauses.push(0);
        if (pending > 0) byAllocation++;
      }
      pending = 0;
    }
    for (const p of l.matchAll(pauseRe)) if (p[1] === main && pauses.length > 0) pauses[pauses.length - 1]! += Number(p[2]);
  }
  const n = done;
  const per10k = (v: number) => ((v * 10_000) / n).toFixed(1);
  const sorted = [...pauses].sort((a, b) => a - b);
  const q = (f: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))]!.toFixed(2) : '-');
  const sum = pauses.reduce((a, b) => a + b, 0);
  // Bytes per create over the cycles that allocation ended (the loop's heap is also collected on
  // Bun's and JSC's timers, which end a cycle early, without the line): each such cycle's bytes
  // over the creates answered since the collection before it.
  let span = 0;
  let bytes = 0;
  for (let i = 1; i < gcs.length; i++) {
    if (gcs[i]!.bytes === 0) continue;
    bytes += gcs[i]!.bytes;
    span += gcs[i]!.at - gcs[i - 1]!.at;
  }
  return (
    `Event loop's heap, collector on (${n} creates through app.handle, 64 in flight; ${root}):\n` +
    `| collections per 10k creates (by allocation) | pause ms per 10k creates | pause per collection p50 / p90 / max ms | creates per collection | bytes allocated per create (JSC's count) |\n|---:|---:|---|---:|---:|\n` +
    `| ${per10k(pauses.length)} (${per10k(byAllocation)}) | ${per10k(sum)} | ${q(0.5)} / ${q(0.9)} / ${q(1)} | ${(n / Math.max(1, pauses.length)).toFixed(0)} | ${span > 0 ? (bytes / span).toFixed(0) : '-'} |`
  );
}

const N = env('BENCH_N', GC_MODE ? 30_000 : 2000);
const WARMUP = env('BENCH_WARMUP', 3000);
const TOP = env('BENCH_TOP', 30);
const jsc = require('bun:jsc') as typeof import('bun:jsc');
const { validate } = await import(`${root}/src/config`);
const { DEFAULT_CONFIG } = await import(`${root}/src/config.types`);
const { createCore } = await import(`${root}/src/compose`);
const { bootstrapIfEmpty } = await import(`${root}/src/bootstrap`);
const { setEndpoint } = await import(`${root}/src/webhooks/set-endpoint`);
const { webhookServices } = await import(`${root}/src/webhooks/services`);
const { createRepos } = await import(`${root}/src/store/repos`);
const { openDb } = await import(`${root}/src/store/db`);
const { statesTagged } = await import(`${root}/machines/judge`);

const dir = mkdtempSync(join(tmpdir(), 'create-heap-'));
const db = join(dir, 'p.db');
const config = validate({
  ...structuredClone(DEFAULT_CONFIG), port: 0, db, logLevel: 'error',
  rateLimit: { perSecond: 1e9, burst: 1e9 }, webhooks: { ...DEFAULT_CONFIG.webhooks, allowPrivateUrls: true },
});
// As serve runs it: the dispatcher on its own thread (its own heap, not counted here).
const core = await createCore(config, { dispatcherThread: true });
const boot = await bootstrapIfEmpty(core.store);
await core.boot();
const side = openDb(db);
const repos = createRepos(side, { live: statesTagged('live'), watching: statesTagged('watching') });
await setEndpoint(webhookServices(repos, config), { accountId: boot!.accountId, mode: 'test' }, { url: 'http://127.0.0.1:9/hook' });
side.close();

const BODY = JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '12.34', requestor: '0x1111111111111111111111111111111111111111' });
const headers = { authorization: `Bearer ${boot!.testKey}`, 'content-type': 'application/json', 'content-length': String(BODY.length) };
let bad = 0;
let marks = false;
let answered = 0;
const { createIntent } = await import(`${root}/src/intents/create-intent`);
const { authenticate } = await import(`${root}/src/api/auth`);
const caller = await authenticate(`Bearer ${boot!.testKey}`, (h: string) => core.store.repos.apiKeys.findActiveByHash(h));
const OK = new Response(null, { status: 201 });
const kinds: Record<string, () => Promise<Response>> = {
  create: () => core.app.handle(new Request('http://localhost:8080/v1/intents', { method: 'POST', headers, body: BODY })),
  // The verb alone (src/intents/create-intent.ts and below: runtime, store), its body parsed here.
  verb: async () => (await createIntent(core.services, caller, { body: JSON.parse(BODY), idempotencyKeyHeader: null }), OK),
  bare: async () => (new Request('http://localhost:8080/v1/intents', { method: 'POST', headers, body: BODY }), new Response('{}', { status: 201 })),
};

async function run(kind: string, n: number, expect: number): Promise<void> {
  const f = kinds[kind]!;
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next++ < n) {
        const res = await f();
        // (BENCH_GC: every 100th answered create, in order with the collector's lines.)
        if (marks && ++answered % 100 === 0) writeSync(2, `@@create-heap c=${answered}\n`);
        if (res.status !== expect) bad++;
        await res.text();
      }
    }),
  );
  // Every create above was answered, so its batch committed and synced: nothing is half-done.
}

// `malloc`: what JSC's allocator (libpas) holds, the heap's blocks included: with the collector off
// it also keeps the memory of every string, body and buffer the creates made (beside the cells),
// which the collector counts toward its next collection as it does cells.
interface Sample { capacity: number; malloc: number; cells: number; types: Record<string, number> }
const sample = (): Sample => {
  const s = jsc.heapStats();
  return { capacity: s.heapCapacity, malloc: jsc.memoryUsage().current, cells: Object.values(s.objectTypeCounts).reduce((a, b) => a + b, 0), types: { ...s.objectTypeCounts } };
};

async function measure(kind: string, expect: number) {
  await run(kind, WARMUP, expect);
  const a = sample();
  await run(kind, N, expect);
  const b = sample();
  const per: Array<[string, number]> = Object.keys(b.types)
    .map((k) => [k, ((b.types[k] ?? 0) - (a.types[k] ?? 0)) / N] as [string, number])
    .filter(([, v]) => v >= 0.05)
    .sort((x, y) => y[1] - x[1]);
  return { bytes: (b.capacity - a.capacity) / N, malloc: (b.malloc - a.malloc) / N, cells: (b.cells - a.cells) / N, per };
}

if (GC_MODE) {
  await run('create', WARMUP, 201);
  writeSync(2, '@@create-heap start\n');
  Bun.gc(true);
  writeSync(2, '@@create-heap go\n');
  marks = true;
  await run('create', N, 201);
  writeSync(2, '@@create-heap end\n');
  await core.stop();
  rmSync(dir, { recursive: true, force: true });
  if (bad) throw new Error(`${bad} requests answered another status`);
  process.exit(0);
}

const bare = await measure('bare', 201);
const verb = await measure('verb', 201);
const create = await measure('create', 201);
await core.stop();
rmSync(dir, { recursive: true, force: true });
if (bad) throw new Error(`${bad} requests answered another status`);

console.log(`JS heap per request (N=${N} after ${WARMUP} warm-up, 64 in flight, collector off; ${root})`);
console.log(`| request | bytes | cells | JSC malloc bytes (cells, strings, buffers) |\n|---|---:|---:|---:|`);
console.log(`| create (POST /v1/intents, app.handle) | ${create.bytes.toFixed(0)} | ${create.cells.toFixed(1)} | ${create.malloc.toFixed(0)} |`);
console.log(`| the verb alone (createIntent: runtime, SQL, no HTTP) | ${verb.bytes.toFixed(0)} | ${verb.cells.toFixed(1)} | ${verb.malloc.toFixed(0)} |`);
console.log(`| harness alone (new Request + Response) | ${bare.bytes.toFixed(0)} | ${bare.cells.toFixed(1)} | ${bare.malloc.toFixed(0)} |`);
console.log(`\ncells per create by type (top ${TOP}):`);
const verbOf = new Map(verb.per);
for (const [k, v] of create.per.slice(0, TOP)) console.log(`  ${k.padEnd(36)} ${v.toFixed(2).padStart(7)}  (verb alone ${(verbOf.get(k) ?? 0).toFixed(2)})`);
