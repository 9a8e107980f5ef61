// The webhook dispatcher on its own thread: the entry point of the Worker that
// dispatcher-thread.ts starts. It runs the same createDispatcher on its own connection to the
// store (src/store/dispatch-connection.ts), so claims, records, signing and sends no longer take
// the server's event loop. The durability gate is the connection's (on SQLite: the server's batch
// numbers in shared memory); log lines go back to the server's logger.
import { openDispatchConnection, type DispatchConnection } from '../store/dispatch-connection';
import { nameThread } from '../store/thread-name';
import { createDispatcher, type Dispatcher, type DispatcherLog } from './dispatcher';
import { NOT_WOKEN, WOKEN_FROM_OFFSET, type FromDispatchWorker, type ToDispatchWorker } from './dispatcher-thread';

declare const self: Worker;

const post = (m: FromDispatchWorker) => self.postMessage(m);
let conn: DispatchConnection | null = null;
let dispatcher: Dispatcher | null = null;
let stats: BigInt64Array | null = null;
let statsTimer: ReturnType<typeof setInterval> | undefined;
let wakeFlag: Int32Array | null = null;
let wokenFrom: BigInt64Array | null = null;

// Bun has it (ES2024); the TypeScript lib this project targets does not name it yet.
const waitAsync = (Atomics as unknown as {
  waitAsync(a: Int32Array, i: number, v: number): { async: boolean; value: Promise<string> | string };
}).waitAsync.bind(Atomics);

/**
 * Under create load the server raises the flag after nearly every batch (~400 a second), and each
 * wake was a deep claim of its own: a read transaction that, after the server's commits, reads its
 * pages again, for ~8 rows (12-15 % of them none). While sends are in flight, a wake that comes
 * within WAKE_GAP_MS of the previous one waits out the rest of the gap with the flag still raised:
 * the server's raises meanwhile only lower the earliest due time (no notify: the flag is up), and
 * one wake then brings them all (with its earliest due time: nothing is looked past). A wake while
 * nothing is in flight, or the first after a quiet gap, is taken at once: a delivery to an idle
 * dispatcher goes out as before; a busy one's new rows wait at most the gap more for their claim
 * (sends finishing still claim the oldest due rows meanwhile, and the poll still runs).
 * bench/RESULTS.md (dcpu3): dispatcher CPU per delivery -2 to -3 us under create load.
 */
const WAKE_GAP_MS = 10;
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Wake the dispatcher each time the server raises the flag (after commits that queued deliveries, replays). */
async function followWakes(flag: Int32Array, from: BigInt64Array): Promise<void> {
  let lastWake = -Infinity;
  for (;;) {
    const r = waitAsync(flag, 0, 0);
    if (r.async) await r.value;
    const early = lastWake + WAKE_GAP_MS - performance.now();
    if (early > 0 && (dispatcher?.stats().inFlight ?? 0) > 0) await pause(early);
    lastWake = performance.now();
    // The flag first, then the time (the server writes them in the other order): a time lowered
    // after this exchange comes with a raise of the flag this loop has not seen yet.
    Atomics.store(flag, 0, 0);
    const t = Atomics.exchange(from, 0, NOT_WOKEN);
    // NOT_WOKEN: a raise whose time an earlier exchange took (that wake covered it).
    dispatcher?.wake(t === NOT_WOKEN ? Infinity : Number(t));
  }
}

/** The dispatcher's counters, where the server's /metrics reads them without a round trip. */
function publishStats(): void {
  if (!stats || !dispatcher) return;
  const s = dispatcher.stats();
  Atomics.store(stats, 0, BigInt(s.inFlight));
  Atomics.store(stats, 1, BigInt(s.attempts));
  Atomics.store(stats, 2, BigInt(s.delivered));
  Atomics.store(stats, 3, BigInt(s.failed));
}

async function handle(m: ToDispatchWorker): Promise<void> {
  switch (m.type) {
    case 'init': {
      nameThread('pf-dispatch');
      stats = new BigInt64Array(m.stats);
      wakeFlag = new Int32Array(m.wake, 0, 1);
      wokenFrom = new BigInt64Array(m.wake, WOKEN_FROM_OFFSET, 1);
      const log: DispatcherLog = (level, msg, fields) => {
        if (m.levels.includes(level)) post({ type: 'log', level, msg, fields });
      };
      let c: DispatchConnection;
      try {
        c = conn = await openDispatchConnection(m.db, m.gate);
      } catch (e) {
        post({ type: 'failed', error: String(e) });
        return;
      }
      const inner = c.dispatch;
      dispatcher = createDispatcher({
        dispatch: {
          claim: (a) => inner.claim(a),
          record: (r) => inner.record(r),
          release: (r) => inner.release(r),
          // Counters published at every tick's transaction (a tick's attempts are counted before it).
          recordAndClaim: (records, releases, claim) => {
            publishStats();
            return inner.recordAndClaim(records, releases, claim);
          },
        },
        durable: (maxSeq) => c.durable(maxSeq),
        config: m.config,
        log,
      });
      statsTimer = setInterval(publishStats, 250);
      post({ type: 'ready' });
      log('info', 'webhook dispatcher running on its own thread', {});
      return;
    }
    case 'start':
      dispatcher?.start();
      void followWakes(wakeFlag!, wokenFrom!);
      return;
    case 'stop':
      clearInterval(statsTimer);
      try {
        await dispatcher?.stop();
        publishStats();
        await conn?.close();
      } catch (e) {
        post({ type: 'log', level: 'error', msg: 'webhook dispatcher thread did not stop cleanly', fields: { error: String(e) } });
      }
      post({ type: 'stopped' });
      return;
  }
}

// Messages are handled in order: `init` (which may await a PostgreSQL pool) finishes before
// the `start` or `wake` that follow it.
let queue: Promise<void> = Promise.resolve();
self.onmessage = (e: MessageEvent<ToDispatchWorker>) => {
  const m = e.data;
  queue = queue
    .then(() => handle(m))
    .catch((err) => post({ type: 'log', level: 'error', msg: 'webhook dispatcher thread: a message failed', fields: { type: m.type, error: String(err) } }));
};
