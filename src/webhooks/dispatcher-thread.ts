// The webhook dispatcher on a thread of its own (a Bun Worker running dispatch-worker.ts), seen
// from the server as the same Dispatcher: start, wake, stop, stats. Under create load the
// dispatcher's transactions, signing and sends took a sixth of the event loop and fell behind;
// on its own thread it uses the second core, and the event loop only raises its wake flag and
// writes the log lines it posts back.
//
// What stays exact across the thread boundary:
// - the durability gate: on SQLite the server's group committer publishes, in shared memory, the
//   number of each batch before its COMMIT and the number its WAL syncs have reached; a claim
//   that read rows sends them once the syncs pass the number it saw (src/store/write-gate.ts).
//   The server's event loop is not asked. PostgreSQL commits are durable when they return;
// - wake after a commit: wake() raises a flag in shared memory the worker waits on (no message:
//   a wake per create would be thousands a second; raised again before the worker looked, it
//   counts once, as the dispatcher's own wakes do), and the worker claims on its own connection,
//   where the commit is already visible. Beside the flag, the earliest due time the wakes brought
//   (the lowest since the worker last took it): the claim looks back to it (dispatcher.ts wake);
// - stop: the worker aborts its sends, gives unsent rows back and records what it finished in its
//   own last transaction before it answers; a killed process leaves its rows unrecorded, sent again
//   by the next serve (PostgreSQL: once their leases run out; SQLite: at once, its leases were in memory);
// - /metrics: the worker publishes its counters in shared memory, read without a round trip;
// - logs: every line goes back to the server's logger (src/log.ts), at the levels it writes.
// Should the thread fail to start or die, the dispatcher runs on the event loop instead (rows the
// dead thread held come back when their leases run out; on SQLite at once: they were in its memory).
import type { Config } from '../config.types';
import type { LogLevel } from '../log';
import type { Dispatcher, DispatcherLog, DispatcherStats } from './dispatcher';

export type ToDispatchWorker =
  | { type: 'init'; db: string; gate: SharedArrayBuffer | null; config: Config; levels: LogLevel[]; stats: SharedArrayBuffer; wake: SharedArrayBuffer }
  | { type: 'start' }
  | { type: 'stop' };

export type FromDispatchWorker =
  | { type: 'ready' }
  | { type: 'failed'; error: string }
  | { type: 'stopped' }
  | { type: 'log'; level: LogLevel; msg: string; fields?: Record<string, unknown> };

export interface DispatcherThreadOptions {
  /** The database the server has opened (and migrated): a SQLite file or a postgres:// URL. */
  db: string;
  config: Config;
  /** SQLite: the server's write gate (SqliteStore.writeGate.buffer); null on PostgreSQL. */
  gate: SharedArrayBuffer | null;
  log: DispatcherLog;
  /** The levels `log` writes (the worker posts no others). */
  levels: LogLevel[];
  /** The dispatcher to run on the event loop instead, should the thread fail. */
  fallback: () => Dispatcher;
}

/**
 * The wake's shared memory: the flag (Int32 at 0) and the earliest due time wakes brought since
 * the worker last took it (BigInt64 at 8; NOT_WOKEN when none). The server lowers the time, then
 * raises the flag; the worker lowers the flag, then takes the time: a time it missed comes with a
 * raise it has not seen yet.
 */
export const WAKE_BYTES = 16;
export const WOKEN_FROM_OFFSET = 8;
export const NOT_WOKEN = BigInt(Number.MAX_SAFE_INTEGER);

/** Lower the shared earliest due time to `t` (ms; 0 for every due row). */
export function lowerWokenFrom(slot: BigInt64Array, t: number): void {
  const v = BigInt(Math.max(0, Math.floor(t)));
  for (;;) {
    const cur = Atomics.load(slot, 0);
    if (cur <= v || Atomics.compareExchange(slot, 0, cur, v) === cur) return;
  }
}

/** Longest wait for the worker's own stop (its sends are aborted: it takes one transaction). */
const STOP_TIMEOUT_MS = 10_000;

/**
 * The worker's entry point. In the compiled executable every module is bundled into the one
 * file (import.meta.url is the executable's) and the worker is a second entry point of the build
 * (scripts/build.ts), stored under the build's root, src/.
 */
function workerEntry(): string {
  if (import.meta.url.includes('/$bunfs/')) return '/$bunfs/root/webhooks/dispatch-worker.ts';
  return new URL('./dispatch-worker.ts', import.meta.url).href;
}

export function startDispatcherThread(o: DispatcherThreadOptions): Dispatcher {
  const shared = new SharedArrayBuffer(4 * BigInt64Array.BYTES_PER_ELEMENT);
  const counters = new BigInt64Array(shared);
  const wakeBuffer = new SharedArrayBuffer(WAKE_BYTES);
  const wakeFlag = new Int32Array(wakeBuffer, 0, 1);
  const wokenFrom = new BigInt64Array(wakeBuffer, WOKEN_FROM_OFFSET, 1);
  Atomics.store(wokenFrom, 0, NOT_WOKEN);
  const worker = new Worker(workerEntry());
  // The process ends when its work is done; stop() ends the worker first.
  (worker as Worker & { unref(): void }).unref();
  let alive = true;
  let started = false;
  let stopping = false;
  let inline: Dispatcher | null = null;
  let stopped: (() => void) | null = null;
  const send = (m: ToDispatchWorker) => worker.postMessage(m);
  // A batch's commits settle together and each one that queued a delivery wakes the dispatcher:
  // they are folded into one raise of the flag at the end of that burst of callbacks (a microtask
  // queued behind them), so the event loop pays one notify per batch instead of one per create,
  // and the worker starts one claim for all of them. Nothing waits a turn of the event loop.
  let wakeQueued = false;
  const raise = () => {
    wakeQueued = false;
    if (inline) inline.wake(Number(Atomics.exchange(wokenFrom, 0, NOT_WOKEN)));
    else if (Atomics.compareExchange(wakeFlag, 0, 0, 1) === 0) Atomics.notify(wakeFlag, 0);
  };
  // Settles once the thread has its connection (or has failed over to the event loop): boot waits
  // for it, so the first rows are not left behind a thread still loading while requests are served.
  let settleReady: () => void = () => {};
  const readyP = new Promise<void>((resolve) => (settleReady = resolve));

  function fail(why: string): void {
    if (!alive) return;
    alive = false;
    worker.terminate();
    settleReady();
    stopped?.();
    if (stopping) return;
    o.log('error', 'webhook dispatcher thread failed; dispatching on the event loop', { error: why });
    inline = o.fallback();
    if (started) inline.start();
  }

  worker.onmessage = (e: MessageEvent<FromDispatchWorker>) => {
    const m = e.data;
    switch (m.type) {
      case 'log':
        o.log(m.level, m.msg, m.fields);
        return;
      case 'failed':
        fail(m.error);
        return;
      case 'stopped':
        stopped?.();
        return;
      case 'ready':
        settleReady();
        return;
    }
  };
  worker.onerror = (e) => fail(e.message);
  worker.addEventListener('close', () => fail('the worker exited'));
  send({ type: 'init', db: o.db, gate: o.gate, config: o.config, levels: o.levels, stats: shared, wake: wakeBuffer });

  return {
    ready: () => readyP,
    start() {
      if (started) return;
      started = true;
      if (inline) inline.start();
      else send({ type: 'start' });
    },
    wake(dueFrom = 0) {
      if (inline) return inline.wake(dueFrom);
      lowerWokenFrom(wokenFrom, dueFrom);
      if (wakeQueued) return;
      wakeQueued = true;
      queueMicrotask(raise);
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      if (alive) {
        const done = new Promise<void>((resolve) => (stopped = resolve));
        send({ type: 'stop' });
        const guard = setTimeout(() => fail('no answer to stop'), STOP_TIMEOUT_MS);
        await done;
        clearTimeout(guard);
        alive = false;
        worker.terminate();
      }
      await inline?.stop();
    },
    stats(): DispatcherStats {
      if (inline) return inline.stats();
      return {
        inFlight: Number(Atomics.load(counters, 0)),
        attempts: Number(Atomics.load(counters, 1)),
        delivered: Number(Atomics.load(counters, 2)),
        failed: Number(Atomics.load(counters, 3)),
      };
    },
  };
}
