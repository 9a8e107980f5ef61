// What held the server back while a phase ran, for a bench whose server shares this process
// (bench/create): event-loop lag sampled every few ms, and the server's own spans (src/trace.ts:
// checkpoint passes and holds, live resyncs, group-commit batches and their fsync waits). The
// summary names the longest stalls and what overlapped each, so a latency tail has a cause on
// the page. GC is not observable from here: a stall no span overlaps is "other" (GC, HTTP, the
// dispatcher's own transactions).
import { writeFileSync } from 'node:fs';
import { setTraceSink, type Span, type SpanKind } from '../../src/trace';
import { pct } from './stats';

interface Stall {
  at: number;
  ms: number;
}

export interface Timeline {
  /** Stop sampling and tracing; the summary of the window since start. */
  stop(): TimelineSummary;
}

export interface TimelineSummary {
  lag: { p50: number; p99: number; max: number; over10: number; over50: number };
  holds: { n: number; p50: number; max: number };
  /** The database file's fdatasync before each hold (writes go on meanwhile). */
  flushes: { n: number; p50: number; max: number };
  /** restarts: passes that found a smaller WAL than the one before (it started over in between). */
  passes: { n: number; max: number; restarts: number };
  resyncs: { n: number; max: number; heads: number };
  batches: { n: number; meanWrites: number; maxWrites: number; p99Ms: number; maxMs: number };
  durable: { p50: number; p99: number; max: number };
  /** Oldest write of a batch: queued to durable. */
  wait: { p50: number; p99: number; max: number };
  /** The longest event-loop stalls, each with what overlapped it. */
  worst: string[];
  /** One line for a bench's output. */
  line: string;
}

/** Start recording; `everyMs` is the lag probe's period. */
export function startTimeline(everyMs = 5): Timeline {
  const t0 = performance.now();
  const spans: Span[] = [];
  setTraceSink((s) => spans.push(s));
  const stalls: Stall[] = [];
  const lags: number[] = [];
  let expected = performance.now() + everyMs;
  const timer = setInterval(() => {
    const t = performance.now();
    const lag = Math.max(0, t - expected);
    lags.push(lag);
    if (lag >= 5) stalls.push({ at: t, ms: lag });
    expected = t + everyMs;
  }, everyMs);

  return {
    stop() {
      clearInterval(timer);
      setTraceSink(null);
      // Every span and stall, for a closer look (times in ms from the start).
      const out = process.env.BENCH_TIMELINE_OUT;
      if (out) {
        const rel = <T extends { start?: number; at?: number }>(x: T) => ({ ...x, ...(x.start ? { start: x.start - t0 } : {}), ...(x.at ? { at: x.at - t0 } : {}) });
        writeFileSync(out, JSON.stringify({ spans: spans.map(rel), stalls: stalls.map(rel) }));
      }
      const of = (k: SpanKind) => spans.filter((s) => s.kind === k);
      const ms = (k: SpanKind) => of(k).map((s) => s.ms);
      const max = (xs: number[]) => (xs.length ? Math.max(...xs) : 0);
      const holds = ms('checkpoint.hold');
      const flushes = ms('checkpoint.flush');
      const batches = of('commit.batch');
      const resyncs = of('resync');
      // A stall is the loop blocked over [at - ms, at]: name the spans that overlap it.
      const worst = [...stalls]
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 5)
        .map((st) => {
          const from = st.at - st.ms;
          const over = spans.filter((s) => s.kind !== 'commit.durable' && s.kind !== 'commit.wait' && s.start < st.at && s.start + s.ms > from && s.ms >= 2);
          const what = over.map((s) => `${s.kind} ${s.ms.toFixed(0)} ms (${s.n})`).join(', ') || 'other';
          return `${st.ms.toFixed(0)} ms at ${((st.at - t0) / 1000).toFixed(2)} s: ${what}`;
        });
      const durable = ms('commit.durable');
      const wait = ms('commit.wait');
      const writes = batches.map((b) => b.n);
      const f = (x: number) => x.toFixed(1);
      const s: Omit<TimelineSummary, 'line'> = {
        lag: { p50: pct(lags, 50), p99: pct(lags, 99), max: max(lags), over10: lags.filter((l) => l >= 10).length, over50: lags.filter((l) => l >= 50).length },
        holds: { n: holds.length, p50: holds.length ? pct(holds, 50) : 0, max: max(holds) },
        flushes: { n: flushes.length, p50: flushes.length ? pct(flushes, 50) : 0, max: max(flushes) },
        passes: { n: of('checkpoint.pass').length, max: max(ms('checkpoint.pass')), restarts: of('checkpoint.pass').filter((p, i, a) => i > 0 && p.n < a[i - 1]!.n).length },
        resyncs: { n: resyncs.length, max: max(resyncs.map((r) => r.ms)), heads: max(resyncs.map((r) => r.n)) },
        batches: {
          n: batches.length,
          meanWrites: writes.reduce((a, b) => a + b, 0) / Math.max(1, writes.length),
          maxWrites: max(writes),
          p99Ms: batches.length ? pct(batches.map((b) => b.ms), 99) : 0,
          maxMs: max(batches.map((b) => b.ms)),
        },
        durable: { p50: pct(durable, 50), p99: pct(durable, 99), max: max(durable) },
        wait: { p50: pct(wait, 50), p99: pct(wait, 99), max: max(wait) },
        worst,
      };
      const line =
        `event-loop lag p99 ${f(s.lag.p99)} ms, max ${f(s.lag.max)} ms (${s.lag.over10} samples ≥ 10 ms, ${s.lag.over50} ≥ 50 ms, every ${everyMs} ms); ` +
        `checkpoint holds ${s.holds.n} (p50 ${f(s.holds.p50)}, longest ${f(s.holds.max)} ms; the database flush before each p50 ${f(s.flushes.p50)}, longest ${f(s.flushes.max)} ms, not held), passes ${s.passes.n} (longest ${f(s.passes.max)} ms), WAL restarts ${s.passes.restarts}; ` +
        `resyncs ${s.resyncs.n} (longest ${f(s.resyncs.max)} ms, ${s.resyncs.heads} live heads); ` +
        `batches ${s.batches.n} (mean ${f(s.batches.meanWrites)}, max ${s.batches.maxWrites} writes; on the loop p99 ${f(s.batches.p99Ms)}, max ${f(s.batches.maxMs)} ms); ` +
        `commit→durable p50 ${f(s.durable.p50)}, p99 ${f(s.durable.p99)}, max ${f(s.durable.max)} ms; oldest write queued→durable p99 ${f(s.wait.p99)}, max ${f(s.wait.max)} ms`;
      return { ...s, line };
    },
  };
}
