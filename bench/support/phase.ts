// One measured phase of a lifecycle bench (baseline or PayForge): throughput, latency percentiles, errors, RPC calls.
import { pct } from './stats';

export interface PhaseResult {
  n: number;
  ok: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  errors: string[];
  calls: Record<string, number>;
}

/** A pool() pass whose results are per-item latencies in ms, with the RPC calls it made. */
export function summarize(r: { results: (number | undefined)[]; errors: string[]; seconds: number }, calls: Record<string, number>): PhaseResult {
  const lat = r.results.filter((x): x is number => x !== undefined);
  return { n: r.results.length, ok: lat.length, seconds: r.seconds, perSecond: lat.length / r.seconds, p50: pct(lat, 50), p99: pct(lat, 99), max: Math.max(...lat), errors: r.errors, calls };
}

/** A warm-up pass (JIT, connections), not counted, then the measured pass of `n` after it. */
export async function warmThenMeasure<R>(run: (n: number, offset: number) => Promise<R>, warmup: number, n: number): Promise<R> {
  await run(warmup, 0);
  return run(n, warmup);
}
