// bench/create-heap: JavaScript heap allocated per create, and by what. Creates go through the
// real app (core.app.handle: authentication, body, validation, the verb, the group-committed
// write on a real SQLite file with a webhook endpoint configured, the 201), 64 in flight, beside
// a bare Request + Response through the same harness (what every request costs before PayForge).
// The process runs with JSC's collector off (BUN_JSC_useGC=false, it re-starts itself so), so
// every cell made during the measured creates is still in the heap when it is counted:
// heapStats() object counts by type and heap capacity before/after, divided by N, are exact
// allocation figures (capacity grows in 16 KiB blocks: +-1 block over N). Not a speed.
// Usage: bun bench/create-heap/run.ts   (BENCH_N measured creates, BENCH_WARMUP before; ROOT=<tree> to measure another checkout)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { env } from '../support/env';

if (process.env.BUN_JSC_useGC !== 'false') {
  const p = Bun.spawnSync([process.execPath, ...process.argv.slice(1)], { env: { ...process.env, BUN_JSC_useGC: 'false' }, stdout: 'inherit', stderr: 'inherit' });
  process.exit(p.exitCode ?? 1);
}

const N = env('BENCH_N', 2000);
const WARMUP = env('BENCH_WARMUP', 3000);
const TOP = env('BENCH_TOP', 30);
const root = resolve(process.env.ROOT ?? join(import.meta.dir, '../..'));
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
        if (res.status !== expect) bad++;
        await res.text();
      }
    }),
  );
  // Every create above was answered, so its batch committed and synced: nothing is half-done.
}

interface Sample { capacity: number; cells: number; types: Record<string, number> }
const sample = (): Sample => {
  const s = jsc.heapStats();
  return { capacity: s.heapCapacity, cells: Object.values(s.objectTypeCounts).reduce((a, b) => a + b, 0), types: { ...s.objectTypeCounts } };
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
  return { bytes: (b.capacity - a.capacity) / N, cells: (b.cells - a.cells) / N, per };
}

const bare = await measure('bare', 201);
const verb = await measure('verb', 201);
const create = await measure('create', 201);
await core.stop();
rmSync(dir, { recursive: true, force: true });
if (bad) throw new Error(`${bad} requests answered another status`);

console.log(`JS heap per request (N=${N} after ${WARMUP} warm-up, 64 in flight, collector off; ${root})`);
console.log(`| request | bytes | cells |\n|---|---:|---:|`);
console.log(`| create (POST /v1/intents, app.handle) | ${create.bytes.toFixed(0)} | ${create.cells.toFixed(1)} |`);
console.log(`| the verb alone (createIntent: runtime, SQL, no HTTP) | ${verb.bytes.toFixed(0)} | ${verb.cells.toFixed(1)} |`);
console.log(`| harness alone (new Request + Response) | ${bare.bytes.toFixed(0)} | ${bare.cells.toFixed(1)} |`);
console.log(`\ncells per create by type (top ${TOP}):`);
const verbOf = new Map(verb.per);
for (const [k, v] of create.per.slice(0, TOP)) console.log(`  ${k.padEnd(36)} ${v.toFixed(2).padStart(7)}  (verb alone ${(verbOf.get(k) ?? 0).toFixed(2)})`);
