// Shared memory between the server's connection (its group committer, on the event loop) and the
// connections of its threads (the webhook dispatcher's, dispatch-connection.ts; the intent
// writer's, intent-writer-thread.ts), for two things SQLite alone does badly across threads:
//
// - Taking turns at the write lock. A BEGIN IMMEDIATE that finds the lock taken sleeps in SQLite's
//   busy handler (1, 2, 5, 10 ms ...) even when the other transaction ends 100 µs later: the event
//   loop would sleep a millisecond or more whenever it met another connection's transaction, and a
//   thread ~10 ms whenever it met a batch. Here each writer takes a shared flag before BEGIN and
//   the others wake the moment it is given back. SQLite's own lock still decides (a CLI command,
//   a wait past its bound); the flag only spares the sleeps. The event loop never blocks on the
//   flag (enterAsync: the intent writer holds it through its COMMIT's fsync), and it goes first:
//   while it waits, a thread about to take the flag waits for it (WANT), or a thread that always
//   has the next transaction ready (the writer under load) would take every turn before the
//   event loop gets round to trying.
// - The durability gate. The committer numbers its batches; it publishes the number of a batch
//   before its COMMIT (so any commit the dispatcher can read is counted) and the number its WAL
//   syncs have reached. A claim that read rows waits until the sync passes the number it saw.

const LOCK = 0;
const HOLD = 1;
const BEGUN = 2;
const SYNCED = 3;
const FAILED = 4;
/** How many waits of the event loop for the turn are under way: the threads let it go first. */
const WANT = 5;
const WORDS = 8;

export interface WriteGate {
  /** The shared memory, for the other thread (writeGateOn there). */
  buffer: SharedArrayBuffer;
  /**
   * A thread: take the write turn, waiting at most `maxWaitMs` (blocking this thread, after the
   * event loop if it is waiting too): whether it was taken (else go on without it), and how long it waited.
   */
  enter(maxWaitMs: number): { taken: boolean; waitedMs: number };
  /** The event loop: the same without blocking it (FREE at once when the turn is free). */
  enterAsync(maxWaitMs: number): Turn | Promise<Turn>;
  leave(): void;
  /** Committer: batch `seq` is about to COMMIT. */
  committing(seq: number): void;
  /** Committer: every batch up to `seq` is on disk. */
  synced(seq: number): void;
  /** Committer: a WAL sync (or the checkpointer's database sync) failed; nothing will be durable any more. */
  failed(): void;
  /** Whether failed() was called: the other thread acknowledges nothing more either. */
  hasFailed(): boolean;
  /** Committer (the checkpointer's final pass): hold the other thread's writes too. */
  hold(on: boolean): void;
  /** The other thread: wait (at most `maxWaitMs`) while writes are held. */
  waitWhileHeld(maxWaitMs: number): void;
  /** The highest batch number that may be visible to a read now. */
  begun(): number;
  /** null when batch `seq` and every one before it are on disk, else a promise that settles once they are. */
  durable(seq: number): Promise<void> | null;
  /** Whether batch `seq` and every one before it are on disk now (false once a sync failed); waits for nothing. */
  isDurable(seq: number): boolean;
}

export interface Turn {
  taken: boolean;
  waitedMs: number;
}

export function createWriteGate(): WriteGate {
  return writeGateOn(new SharedArrayBuffer(WORDS * Int32Array.BYTES_PER_ELEMENT));
}

// Bun has it (ES2024); the TypeScript lib this project targets does not name it yet.
const waitAsync = (Atomics as unknown as {
  waitAsync(a: Int32Array, i: number, v: number, ms?: number): { async: boolean; value: Promise<string> | string };
}).waitAsync.bind(Atomics);

const FREE: Turn = Object.freeze({ taken: true, waitedMs: 0 });

/** Wrap-safe: batch numbers are Int32 and wrap after 2^31 batches. */
const atLeast = (a: number, b: number) => ((a - b) | 0) >= 0;

export function writeGateOn(buffer: SharedArrayBuffer): WriteGate {
  const w = new Int32Array(buffer);
  async function waitSynced(seq: number): Promise<void> {
    for (;;) {
      if (Atomics.load(w, FAILED) !== 0) throw new Error('the server could not make its commits durable (WAL sync failed)');
      const s = Atomics.load(w, SYNCED);
      if (atLeast(s, seq)) return;
      const r = waitAsync(w, SYNCED, s, 1000);
      if (r.async) await r.value;
    }
  }
  async function enterLater(maxWaitMs: number): Promise<Turn> {
    const t0 = performance.now();
    const deadline = t0 + maxWaitMs;
    Atomics.add(w, WANT, 1);
    let taken = false;
    try {
      for (;;) {
        if (Atomics.compareExchange(w, LOCK, 0, 1) === 0) {
          taken = true;
          break;
        }
        const left = deadline - performance.now();
        if (left <= 0) break;
        const r = waitAsync(w, LOCK, 1, left);
        if (r.async) await r.value;
      }
    } finally {
      Atomics.sub(w, WANT, 1);
      Atomics.notify(w, WANT);
    }
    return { taken, waitedMs: performance.now() - t0 };
  }
  return {
    buffer,
    enter(maxWaitMs) {
      if (Atomics.load(w, WANT) === 0 && Atomics.compareExchange(w, LOCK, 0, 1) === 0) return FREE;
      const t0 = performance.now();
      const deadline = t0 + maxWaitMs;
      let taken = false;
      for (;;) {
        const left = deadline - performance.now();
        if (left <= 0) break;
        // The event loop waits for the turn: it goes first (its own wait is bounded, so is this).
        const want = Atomics.load(w, WANT);
        if (want !== 0) {
          Atomics.wait(w, WANT, want, left);
          continue;
        }
        if (Atomics.compareExchange(w, LOCK, 0, 1) === 0) {
          taken = true;
          break;
        }
        Atomics.wait(w, LOCK, 1, left);
      }
      return { taken, waitedMs: performance.now() - t0 };
    },
    enterAsync(maxWaitMs) {
      if (Atomics.compareExchange(w, LOCK, 0, 1) === 0) return FREE;
      return enterLater(maxWaitMs);
    },
    leave() {
      Atomics.store(w, LOCK, 0);
      // Every waiter: the event loop's (asynchronous) among them, which the threads then let go first.
      Atomics.notify(w, LOCK);
    },
    committing: (seq) => void Atomics.store(w, BEGUN, seq),
    synced(seq) {
      Atomics.store(w, SYNCED, seq);
      Atomics.notify(w, SYNCED);
    },
    failed() {
      Atomics.store(w, FAILED, 1);
      Atomics.notify(w, SYNCED);
    },
    hasFailed: () => Atomics.load(w, FAILED) !== 0,
    hold(on) {
      Atomics.store(w, HOLD, on ? 1 : 0);
      if (!on) Atomics.notify(w, HOLD);
    },
    waitWhileHeld(maxWaitMs) {
      const deadline = performance.now() + maxWaitMs;
      for (;;) {
        const left = deadline - performance.now();
        if (Atomics.load(w, HOLD) === 0 || left <= 0) return;
        Atomics.wait(w, HOLD, 1, left);
      }
    },
    begun: () => Atomics.load(w, BEGUN),
    durable(seq) {
      if (Atomics.load(w, FAILED) === 0 && atLeast(Atomics.load(w, SYNCED), seq)) return null;
      return waitSynced(seq);
    },
    isDurable: (seq) => Atomics.load(w, FAILED) === 0 && atLeast(Atomics.load(w, SYNCED), seq),
  };
}

/**
 * Run a short write of the event loop's connection outside any batch (an autocommit statement:
 * an idempotency key's claim row) in the write turn, waiting for the turn without blocking: else
 * it would meet another thread's transaction (the intent writer's holds its fsync) in SQLite's
 * busy handler, which sleeps on the event loop. Never from inside a write function (the batch
 * holds the turn). `maxWaitMs` past, it runs anyway (SQLite's lock decides).
 */
export async function inTurn<T>(gate: WriteGate, fn: () => T, maxWaitMs = 100): Promise<T> {
  const t = gate.enterAsync(maxWaitMs);
  const turn = t instanceof Promise ? await t : t;
  try {
    return fn();
  } finally {
    if (turn.taken) gate.leave();
  }
}
