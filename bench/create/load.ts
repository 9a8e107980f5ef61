// Fallback load generator for bench/create when `wrk` is not installed: a separate Bun process
// (so the server's event loop is not shared) running N keep-alive fetch loops for a fixed time.
// Input: one JSON argument; output: one `BENCH_JSON {...}` line, the same shape wrk.lua prints.
export {};
interface LoadSpec {
  url: string;
  method: string;
  body: string | null;
  auth: string | null;
  expect: number;
  connections: number;
  seconds: number;
}

const spec = JSON.parse(process.argv[2]!) as LoadSpec;
const headers: Record<string, string> = {};
if (spec.body) headers['content-type'] = 'application/json';
if (spec.auth) headers.authorization = spec.auth;

// Latency histogram in microseconds: bounded memory however long the run.
const MAX_US = 10_000_000;
const hist = new Uint32Array(MAX_US + 1);
let requests = 0;
let ok = 0;
let bad = 0;
let socketErrors = 0;
let sample = '';
let maxUs = 0;
let sumUs = 0;

const start = performance.now();
const deadline = start + spec.seconds * 1000;

async function loop(): Promise<void> {
  while (performance.now() < deadline) {
    const t0 = performance.now();
    try {
      const res = await fetch(spec.url, { method: spec.method, headers, body: spec.body ?? undefined, keepalive: true });
      const text = await res.text();
      if (res.status === spec.expect) ok++;
      else {
        bad++;
        if (sample === '') sample = `${res.status} ${text.slice(0, 200)}`;
      }
    } catch (e) {
      socketErrors++;
      if (sample === '') sample = String(e).slice(0, 200);
      continue;
    }
    const us = Math.min(MAX_US, Math.round((performance.now() - t0) * 1000));
    hist[us]!++;
    requests++;
    sumUs += us;
    if (us > maxUs) maxUs = us;
  }
}

function percentile(p: number): number {
  const target = Math.ceil((p / 100) * requests);
  let seen = 0;
  for (let us = 0; us <= MAX_US; us++) {
    seen += hist[us]!;
    if (seen >= target) return us;
  }
  return MAX_US;
}

await Promise.all(Array.from({ length: spec.connections }, loop));
const durationUs = Math.round((performance.now() - start) * 1000);
console.log(
  `BENCH_JSON ${JSON.stringify({
    requests, duration_us: durationUs, ok, bad, socket_errors: socketErrors,
    p50_us: percentile(50), p90_us: percentile(90), p99_us: percentile(99), max_us: maxUs,
    mean_us: requests ? sumUs / requests : 0, sample: sample.replace(/[\u0000-\u001f"\\]/g, ' '),
  })}`,
);
