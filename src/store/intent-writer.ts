// The intent writer, seen from the event loop: creates handed to a thread of their own
// (intent-writer-worker.ts) that writes them on its own connection, group-committed, so the event
// loop no longer runs their SQL (under create load ~45 % of its time). The event loop builds each
// create's data (row, event, idempotency response) and queues it; once per turn of the loop the
// queue goes to the thread in one message, and the answers of each transaction come back in one,
// in order, after its COMMIT returned (synchronous=FULL there: on disk and only then visible).
//
// SQLite files under `serve` only (src/store/store.ts); createCore, :memory: and PostgreSQL write
// creates in the group committer's batch / their transaction as before. Should the thread fail to
// start or die, creates go back to the event loop's write path (usable() is false); the creates it
// held then are answered with an error: whether they committed is not known (an Idempotency-Key
// retry answers that), exactly as for a process killed mid-commit.
import type { StoreLog } from './group-commit';
import type { NewIntentOutcome, NewIntentWrite } from './intent-writes';

export type { NewIntentWrite } from './intent-writes';

export type ToIntentWriter =
  | { type: 'init'; db: string; gate: SharedArrayBuffer }
  /** NewIntentWrite[] as JSON (one string: cheap to post, see NewIntentWrite). */
  | { type: 'batch'; writes: string }
  | { type: 'stop' };

export type FromIntentWriter =
  | { type: 'ready' }
  | { type: 'failed'; error: string }
  /** NewIntentOutcome[] as JSON, in the order the creates were sent. */
  | { type: 'done'; outcomes: string }
  | { type: 'stopped' };

/** What a create comes to (a failed one rejects). */
export type NewIntentAnswer = Exclude<NewIntentOutcome, { kind: 'failed' }>;

export interface IntentWriter {
  /** Write one create; settles once its transaction committed (or failed). */
  create(w: NewIntentWrite): Promise<NewIntentAnswer>;
  /** True once the thread is up and while it lives: only then does the runtime hand it creates. */
  usable(): boolean;
  /** Settles once the thread has its connection, or has failed. */
  ready(): Promise<void>;
  /** Transactions and creates the thread committed. */
  stats(): { batches: number; writes: number };
  /** Write what is queued, close the thread's connection, end the thread; from its call on, usable() is false and create() refuses (unsent). */
  stop(): Promise<void>;
}

/** A create that failed on the thread, as the error it would have thrown on the event loop. */
export class IntentWriteError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'IntentWriteError';
  }
}

/** Longest wait for the thread's own stop (it writes what it holds, then closes). */
const STOP_TIMEOUT_MS = 10_000;

/**
 * The worker's entry point. In the compiled executable every module is bundled into the one file
 * and the worker is another entry point of the build (scripts/build.ts), stored under src/.
 */
function workerEntry(): string {
  if (import.meta.url.includes('/$bunfs/')) return '/$bunfs/root/store/intent-writer-worker.ts';
  return new URL('./intent-writer-worker.ts', import.meta.url).href;
}

interface Waiter {
  resolve: (a: NewIntentAnswer) => void;
  reject: (e: unknown) => void;
}

/**
 * `gate`: the server's write gate (SqliteStore.writeGate.buffer), shared with the thread. `errorOf`:
 * what a failed create is rejected with (disk-refusal.ts: a full disk or a refused write answers 503).
 */
export function startIntentWriter(o: { db: string; gate: SharedArrayBuffer; log: StoreLog; errorOf?: (e: unknown) => unknown }): IntentWriter {
  const worker = new Worker(workerEntry());
  (worker as Worker & { unref(): void }).unref();
  let alive = true;
  let up = false;
  // stop() began: no create is handed over any more (the runtime writes them on the event loop).
  let stopping = false;
  let queue: NewIntentWrite[] = [];
  // One per create sent, in order: the thread answers in that order.
  let waiting: Waiter[] = [];
  let head = 0;
  let scheduled = false;
  let batches = 0;
  let writes = 0;
  let stopped: (() => void) | null = null;
  let settleReady: () => void = () => {};
  const readyP = new Promise<void>((resolve) => (settleReady = resolve));
  const send = (m: ToIntentWriter) => worker.postMessage(m);

  function fail(why: string): void {
    if (!alive) return;
    alive = false;
    up = false;
    worker.terminate();
    settleReady();
    stopped?.();
    const err = new Error(`the intent writer thread failed (${why}); whether this create committed is not known`);
    for (let i = head; i < waiting.length; i++) waiting[i]!.reject(err);
    waiting = [];
    head = 0;
    o.log('error', 'intent writer thread failed; creates are written on the event loop', { error: why });
  }

  function answer(outcomes: NewIntentOutcome[]): void {
    batches++;
    for (const out of outcomes) {
      const w = waiting[head++]!;
      if (out.kind === 'failed') {
        const e = new IntentWriteError(out.error, out.code);
        w.reject(o.errorOf ? o.errorOf(e) : e);
      }
      else {
        if (out.kind === 'created') writes++;
        w.resolve(out);
      }
    }
    // Compact now and then (the array only grows while answers lag behind).
    if (head > 1024 && head * 2 > waiting.length) {
      waiting = waiting.slice(head);
      head = 0;
    }
  }

  worker.onmessage = (e: MessageEvent<FromIntentWriter>) => {
    const m = e.data;
    switch (m.type) {
      case 'done':
        answer(JSON.parse(m.outcomes) as NewIntentOutcome[]);
        return;
      case 'ready':
        up = true;
        settleReady();
        o.log('info', 'intent writer running on its own thread', {});
        return;
      case 'failed':
        fail(m.error);
        return;
      case 'stopped':
        stopped?.();
        return;
    }
  };
  worker.onerror = (e) => fail(e.message);
  worker.addEventListener('close', () => fail('the worker exited'));
  send({ type: 'init', db: o.db, gate: o.gate });

  function flush(): void {
    scheduled = false;
    if (queue.length === 0 || !alive) return;
    const q = queue;
    queue = [];
    send({ type: 'batch', writes: JSON.stringify(q) });
  }

  return {
    create(w) {
      return new Promise<NewIntentAnswer>((resolve, reject) => {
        // Never sent, so never written: a create after stop() began would otherwise reach the
        // thread behind its stop and be written with nobody waiting for its answer.
        if (!alive || stopping) return reject(new Error('the intent writer thread is not running'));
        queue.push(w);
        waiting.push({ resolve, reject });
        // Every create of this turn of the event loop in one message.
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    usable: () => up && alive && !stopping,
    ready: () => readyP,
    stats: () => ({ batches, writes }),
    async stop() {
      if (!alive || stopping) return;
      stopping = true;
      flush();
      const done = new Promise<void>((resolve) => (stopped = resolve));
      send({ type: 'stop' });
      const guard = setTimeout(() => fail('no answer to stop'), STOP_TIMEOUT_MS);
      await done;
      clearTimeout(guard);
      alive = false;
      up = false;
      worker.terminate();
    },
  };
}
