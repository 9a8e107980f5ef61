// Per-upstream circuit breaker: counts consecutive transport failures, opens after a threshold,
// and after a cooldown lets exactly one probe through (half_open) to decide whether to close.

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface Breaker {
  state(now?: number): BreakerState;
  /** True when a call may go to this upstream now; in half_open it claims the single probe slot. */
  tryAcquire(now?: number): boolean;
  success(): void;
  failure(now?: number): void;
  readonly failures: number;
  /** When the last failure happened (0 = never); picks the fallback when every upstream is open. */
  readonly lastFailureAt: number;
}

export function createBreaker(opts: { failures: number; cooldownMs: number }): Breaker {
  const threshold = Math.max(1, opts.failures);
  let failures = 0;
  let openedAt = 0;
  let lastFailureAt = 0;
  // Only one request probes a half-open upstream; the rest keep skipping it until it answers.
  let probing = false;

  const state = (now = Date.now()): BreakerState => {
    if (failures < threshold) return 'closed';
    return now - openedAt < opts.cooldownMs ? 'open' : 'half_open';
  };

  return {
    state,
    tryAcquire(now = Date.now()) {
      const s = state(now);
      if (s === 'closed') return true;
      if (s === 'open' || probing) return false;
      probing = true;
      return true;
    },
    success() {
      failures = 0;
      probing = false;
    },
    failure(now = Date.now()) {
      failures += 1;
      lastFailureAt = now;
      probing = false;
      // A failed probe (or the threshold-th failure) restarts the cooldown.
      if (failures >= threshold) openedAt = now;
    },
    get failures() {
      return failures;
    },
    get lastFailureAt() {
      return lastFailureAt;
    },
  };
}
