// Deadlines from the database: one timer for the earliest expires_at among live intents, not
// one setTimeout per intent and not XState `after` (delayed events are not persisted).
// Re-armed on boot from the rows, so an intent that ran out while the server was down expires at once.
import { ShardedMap } from './sharded';

export interface Deadlines {
  arm(intentId: string, at: number): void;
  disarm(intentId: string): void;
  size(): number;
  stop(): void;
}

/**
 * Deadlines fired per turn of the event loop. Each is an expiry write (~0.1 ms: the snapshot
 * restored, the move, the row and its event), and after downtime every live intent may be overdue
 * at once: fired in one step, 100k of them held the loop ~10 s (bench/expiry-storm).
 */
const FIRE_CHUNK = 32;
/**
 * Expiry writes in flight at most (onDue's promises): on PostgreSQL each is its own transaction in
 * the pool's queue, so a storm started at once queued ahead of everything else (boot's own reads).
 */
const IN_FLIGHT = 64;
/**
 * Stale heap entries (disarmed or re-armed: lazy deletion) dropped per turn of the event loop. A
 * lost lease disarms every live intent at once; the next arm then popped all 100k stale entries in
 * one step (~140 ms; 500 pops at that size ~2 ms).
 */
const PURGE_CHUNK = 500;

export function createDeadlines(onDue: (intentId: string) => Promise<unknown> | undefined, now: () => number = Date.now): Deadlines {
  // Binary min-heap of [at, id]; `armed` holds the current deadline per id (lazy deletion),
  // sharded: it holds every live intent's, and a plain Map's growth rehashes them all at once.
  const heap: Array<[number, string]> = [];
  const armed = new ShardedMap<number>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let timerAt = Infinity;
  let stopped = false;
  let inFlight = 0;
  // A purge of stale entries goes on at the next turn: schedule() waits for it.
  let purging = false;
  const settled = () => {
    inFlight--;
    schedule();
  };

  const push = (item: [number, string]) => {
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heap[p]![0] <= heap[i]![0]) break;
      [heap[p], heap[i]] = [heap[i]!, heap[p]!];
      i = p;
    }
  };
  const pop = (): [number, string] | undefined => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && heap[l]![0] < heap[m]![0]) m = l;
        if (r < heap.length && heap[r]![0] < heap[m]![0]) m = r;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i]!, heap[m]!];
        i = m;
      }
    }
    return top;
  };

  const schedule = () => {
    if (stopped || purging) return;
    for (let n = 0; heap.length > 0 && armed.get(heap[0]![1]) !== heap[0]![0]; n++) {
      if (n === PURGE_CHUNK) return purgeLater();
      pop();
    }
    // Full: the next write to settle calls schedule() again.
    const next = inFlight >= IN_FLIGHT ? Infinity : (heap[0]?.[0] ?? Infinity);
    if (next === timerAt) return;
    if (timer) clearTimeout(timer);
    timer = null;
    timerAt = next;
    if (next === Infinity) return;
    // Cap the wait: setTimeout overflows past ~24.8 days, and a cap also bounds clock drift.
    timer = setTimeout(fire, Math.min(Math.max(0, next - now()), 60_000));
  };

  /** More stale entries than a chunk on top: the timer waits until the purge reaches a live one. */
  const purgeLater = () => {
    purging = true;
    if (timer) clearTimeout(timer);
    timer = null;
    timerAt = Infinity;
    setImmediate(() => {
      purging = false;
      schedule();
    });
  };

  const fire = () => {
    timer = null;
    timerAt = Infinity;
    const t = now();
    // At most FIRE_CHUNK now (and PURGE_CHUNK entries looked at); the rest on the next timer
    // (schedule(): due, so at once), requests between.
    let fired = 0;
    let popped = 0;
    while (heap.length > 0 && heap[0]![0] <= t && fired < FIRE_CHUNK && popped++ < PURGE_CHUNK && inFlight < IN_FLIGHT) {
      const [at, id] = pop()!;
      if (armed.get(id) !== at) continue;
      armed.delete(id);
      fired++;
      const w = onDue(id);
      if (w !== undefined) {
        inFlight++;
        w.then(settled, settled);
      }
    }
    schedule();
  };

  return {
    arm(id, at) {
      if (armed.get(id) === at) return;
      armed.set(id, at);
      push([at, id]);
      schedule();
    },
    disarm(id) {
      armed.delete(id);
    },
    size: () => armed.size,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
