// Event-loop lag of the bench process, sampled while a phase runs.
import { pct } from './stats';

/** Event-loop lag of this process: how late a 10 ms timer fires, sampled until stop(). */
export function lagProbe(everyMs = 10): { stop(): { p50: number; p99: number; max: number } } {
  const lags: number[] = [];
  let expected = performance.now() + everyMs;
  const timer = setInterval(() => {
    const t = performance.now();
    lags.push(Math.max(0, t - expected));
    expected = t + everyMs;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return { p50: pct(lags, 50), p99: pct(lags, 99), max: Math.max(0, ...lags) };
    },
  };
}
