// A loopback webhook receiver for benches: counts webhooks by type and timestamps each intent.finalized.
import { startReceiver, type Receiver } from '../../test/support/receiver';

export interface Hooks {
  receiver: Receiver;
  url: string;
  /** Resolves with performance.now() when intent.finalized for `intentId` arrives. */
  finalized(intentId: string, timeoutMs: number): Promise<number>;
  /** Webhook count by event type. */
  counts(): Record<string, number>;
  close(): Promise<void>;
}

/** A loopback receiver (test/support/receiver.ts) that timestamps each intent.finalized. */
export function startHooks(): Hooks {
  const receiver = startReceiver();
  const at = new Map<string, number>();
  const waiters = new Map<string, (t: number) => void>();
  const counts: Record<string, number> = {};
  receiver.setHandler((req) => {
    const t = performance.now();
    try {
      const e = JSON.parse(req.body) as { type: string; data: { intent: { id: string } } };
      counts[e.type] = (counts[e.type] ?? 0) + 1;
      if (e.type === 'intent.finalized' && !at.has(e.data.intent.id)) {
        at.set(e.data.intent.id, t);
        waiters.get(e.data.intent.id)?.(t);
      }
    } catch {
      /* not ours */
    }
    return { status: 200 };
  });
  return {
    receiver,
    url: receiver.url('/bench'),
    finalized(id, timeoutMs) {
      const seen = at.get(id);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(id);
          reject(new Error(`no intent.finalized webhook for ${id} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.set(id, (t) => {
          clearTimeout(timer);
          waiters.delete(id);
          resolve(t);
        });
      });
    },
    counts: () => ({ ...counts }),
    close: () => receiver.close(),
  };
}
