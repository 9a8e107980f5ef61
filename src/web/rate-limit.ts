// Token bucket per key (contract section 5): perSecond refill, burst capacity. The API keys one
// by API key, the payment page by pay token; the composition root makes one for each.
// In memory: one process serves the API, and a restart only forgives a second of traffic.

export interface RateLimiter {
  /** Take one token; returns 0 when allowed, else the seconds to wait. */
  take(key: string, now?: number): number;
}

export function createRateLimiter(perSecond: number, burst: number): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key, now = performance.now()) {
      let b = buckets.get(key);
      if (!b) buckets.set(key, (b = { tokens: burst, at: now }));
      b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * perSecond);
      b.at = now;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - b.tokens) / perSecond));
    },
  };
}
