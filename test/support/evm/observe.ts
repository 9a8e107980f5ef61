// Collects what a watcher reports, and waits for a given observation with a deadline.
import type { ChainObservation } from '../../../src/chains/types';

export interface Observations {
  all: ChainObservation[];
  report: (o: ChainObservation) => void;
  /** Resolves with the first observation (from `since`) matching, else rejects after timeoutMs. */
  waitFor(match: Partial<ChainObservation> & { intentId: string }, timeoutMs?: number, since?: number): Promise<ChainObservation>;
  of(intentId: string): Array<ChainObservation['type']>;
}

export function observations(): Observations {
  const all: ChainObservation[] = [];
  const waiters = new Set<() => void>();
  const matches = (o: ChainObservation, m: Record<string, unknown>) => Object.entries(m).every(([k, v]) => (o as any)[k] === v);
  return {
    all,
    report(o) {
      all.push(o);
      for (const w of waiters) w();
    },
    waitFor(m, timeoutMs = 10_000, since = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = all.slice(since).find((o) => matches(o, m));
          if (!found) return;
          cleanup();
          resolve(found);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${JSON.stringify(m)} within ${timeoutMs} ms; saw ${JSON.stringify(all)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    of(intentId) {
      return all.filter((o) => o.intentId === intentId).map((o) => o.type);
    },
  };
}
