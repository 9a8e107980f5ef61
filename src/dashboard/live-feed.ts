// The live view's server-sent events: each open stream follows one account and mode's committed
// events (or one intent's, for its page) from its cursor. One shared timer (running only while a stream is open) reads the
// table's newest seq, which is nearly free; only when it moved does each stream run its own
// indexed query. Nothing hooks into the writers: what a stream sends was read back from the
// store after COMMIT, so an event that was rolled back is never shown.
import type { Mode } from '../domain/intent';
import type { LiveEventRepo, LiveEventRow } from '../store/live-events';

export const POLL_MS = 250;
// Under Bun's idle timeout (10 s), so a quiet stream is not cut; proxies see traffic too.
const HEARTBEAT_MS = 5_000;
const BATCH = 200;
/** Chunks a stream may hold unread before it is dropped. */
const MAX_QUEUED = 2_000;
export const MAX_STREAMS = 64;

/** What the browser receives per event (`event: intent`, JSON). */
export interface LiveEventWire {
  seq: number;
  id: string;
  type: string;
  intentId: string | null;
  from: string | null;
  to: string | null;
  at: number;
  amount: string | null;
  token: string | null;
  chain: string | null;
  reference: string | null;
}

export const toLiveWire = (r: LiveEventRow): LiveEventWire => ({
  seq: r.seq,
  id: r.id,
  type: r.type,
  intentId: r.intentId,
  from: r.fromState,
  to: r.state,
  at: r.createdAt,
  amount: r.amount,
  token: r.token,
  chain: r.chain,
  reference: r.reference,
});

interface Stream {
  accountId: string;
  mode: Mode;
  /** One intent's events only (its own page), or null for the whole account and mode. */
  intentId: string | null;
  /** Last event seq sent. */
  cursor: number;
  /** The table's newest seq when this stream last looked. */
  seen: number;
  /** The session's end: the stream ends with it. */
  until: number;
  lastWrite: number;
  controller: ReadableStreamDefaultController<Uint8Array>;
}

export interface LiveFeed {
  /** An SSE response following `accountId`/`mode` after `afterSeq`; null when too many are open or closed. */
  open(o: { accountId: string; mode: Mode; intentId: string | null; afterSeq: number; until: number; signal: AbortSignal }): Response | null;
  /** End every stream and open no more (server shutdown: a graceful stop waits for open responses). */
  close(): void;
  /** Open streams (metrics, tests). */
  size(): number;
}

export function createLiveFeed(events: LiveEventRepo, log: (level: 'warn', msg: string, f: Record<string, unknown>) => void, now: () => number = Date.now): LiveFeed {
  const streams = new Set<Stream>();
  const enc = new TextEncoder();
  let timer: ReturnType<typeof setInterval> | null = null;
  let closed = false;

  const end = (s: Stream) => {
    if (!streams.delete(s)) return;
    try {
      s.controller.close();
    } catch {
      /* already closed by the client going away */
    }
    if (streams.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };

  const write = (s: Stream, text: string) => {
    try {
      s.controller.enqueue(enc.encode(text));
      s.lastWrite = now();
    } catch {
      end(s);
    }
  };

  /**
   * Only events up to `max` (those are on disk once the durability gate read with it settled),
   * and one batch per stream per call: a long backlog (after=0) goes out over several ticks,
   * never in one long loop.
   */
  const pump = async (s: Stream, max: number) => {
    // A reader that stopped reading is dropped rather than buffered without end; its browser
    // reconnects with Last-Event-ID and resumes where it really stopped.
    if ((s.controller.desiredSize ?? 0) < -MAX_QUEUED) {
      end(s);
      return;
    }
    const read = await events.after(s.accountId, s.mode, s.cursor, BATCH, s.intentId);
    const rows = read.filter((r) => r.seq <= max);
    for (const r of rows) write(s, `id: ${r.seq}\nevent: intent\ndata: ${JSON.stringify(toLiveWire(r))}\n\n`);
    if (rows.length > 0) s.cursor = rows[rows.length - 1]!.seq;
    // Caught up with `max` when the batch was not full or reached past it.
    if (read.length < BATCH || rows.length < read.length) s.seen = max;
  };

  // One tick at a time: the next timer tick is skipped while one still reads or waits.
  let waiting = false;
  const tick = () => {
    if (waiting) return;
    waiting = true;
    void look().finally(() => (waiting = false));
  };

  const look = async () => {
    let max: number;
    try {
      max = await events.maxSeq();
    } catch (e) {
      // The database is closing or busy: try again on the next tick.
      log('warn', 'live view: reading events failed', { error: String(e) });
      return;
    }
    // A committed event may still wait for its WAL sync: never show one a power loss could take back.
    const gate = events.durable();
    if (gate !== null) {
      try {
        await gate;
      } catch {
        return;
      }
    }
    await send(max);
  };

  const send = async (max: number) => {
    try {
      const t = now();
      for (const s of [...streams]) {
        if (!streams.has(s)) continue;
        if (t >= s.until) {
          end(s);
          continue;
        }
        if (max > s.seen) await pump(s, max);
        if (streams.has(s) && t - s.lastWrite >= HEARTBEAT_MS) write(s, ': keep-alive\n\n');
      }
    } catch (e) {
      // The database is busy or closing: the streams keep their cursors and try on the next tick.
      log('warn', 'live view: reading events failed', { error: String(e) });
    }
  };

  return {
    open({ accountId, mode, intentId, afterSeq, until, signal }) {
      if (closed || streams.size >= MAX_STREAMS) return null;
      let stream: Stream | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          stream = { accountId, mode, intentId, cursor: afterSeq, seen: -1, until, lastWrite: now(), controller };
          streams.add(stream);
          // The browser reconnects after 1 s if the connection drops, with Last-Event-ID.
          controller.enqueue(enc.encode('retry: 1000\n: live\n\n'));
          timer ??= setInterval(tick, POLL_MS);
          timer.unref?.();
          queueMicrotask(tick);
        },
        cancel() {
          if (stream) end(stream);
        },
      });
      signal.addEventListener('abort', () => stream && end(stream), { once: true });
      return new Response(body, {
        headers: {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
          // A buffering proxy (nginx) would hold the events back.
          'x-accel-buffering': 'no',
        },
      });
    },
    close() {
      closed = true;
      for (const s of [...streams]) end(s);
    },
    size: () => streams.size,
  };
}
