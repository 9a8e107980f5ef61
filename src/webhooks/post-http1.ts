// Webhook POSTs to http:// endpoints over HTTP/1.1 on TCP sockets of this thread's own event loop
// (Bun.connect), keep-alive sockets pooled per origin; one client per dispatcher. Why not fetch():
// Bun's fetch hands every request to its HTTP client thread and wakes it, and that wake-up is most
// of a send's cost on a busy machine (8 concurrent 1 KiB POSTs to a loopback receiver: ~25 µs CPU
// per request through fetch vs ~10-15 µs on the caller's own socket, at 1.3-2.3x the requests/s).
// A webhook POST needs little of HTTP: a small body out, a status and at most a few KiB back
// (http1-response.ts reads it). https:// endpoints still go through fetch (TLS, certificate and
// name checks stay Bun's).
//
// A socket is reused only after a whole response that allows it, with the whole request written.
// A reused socket that the server had closed while idle fails before any byte of an answer: the
// request is sent again once on a new socket (the receiver saw nothing, or at least once anyway).
import type { Socket } from 'bun';
import { advance, bodyText, DONE, MORE, newResponse, readsToEnd, type ResponseState } from './http1-response';

export interface PostAnswer {
  status: number;
  location: string | null;
  /** The start of the body (at most 4 KiB), UTF-8. */
  text: string;
}

/** Idle keep-alive sockets are closed after this: under the usual servers' own idle timeouts (5 s). */
const IDLE_MS = 4000;

/** A failed POST; `timedOut` when its time ran out (the socket is closed then). */
export class PostError extends Error {
  constructor(message: string, readonly timedOut = false) {
    super(message);
  }
}

interface Exchange extends ResponseState {
  resolve: (a: PostAnswer) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Sent again on a new socket if this one fails before any answer (it was reused). */
  retry: (() => void) | null;
  seen: boolean;
}

interface Conn {
  pool: Pool;
  key: string;
  socket: Socket<Conn> | null;
  closed: boolean;
  /** The part of the request the kernel has not taken yet (written on drain). */
  out: string | Buffer | null;
  /** Its length in bytes. */
  outBytes: number;
  ex: Exchange | null;
  idleSince: number;
}

interface Pool {
  idle: Map<string, Conn[]>;
  busy: Set<Conn>;
  sweeper: ReturnType<typeof setInterval> | undefined;
  closed: boolean;
}

function sweep(pool: Pool): void {
  const old = Date.now() - IDLE_MS;
  for (const [key, list] of pool.idle) {
    const keep = list.filter((c) => {
      if (c.closed) return false;
      if (c.idleSince >= old) return true;
      close(c);
      return false;
    });
    if (keep.length === 0) pool.idle.delete(key);
    else pool.idle.set(key, keep);
  }
  if (pool.idle.size === 0) {
    clearInterval(pool.sweeper);
    pool.sweeper = undefined;
  }
}

function close(c: Conn): void {
  c.closed = true;
  c.socket?.end();
}

function park(c: Conn): void {
  const pool = c.pool;
  c.idleSince = Date.now();
  const list = pool.idle.get(c.key);
  if (list) list.push(c);
  else pool.idle.set(c.key, [c]);
  if (!pool.sweeper) {
    pool.sweeper = setInterval(() => sweep(pool), 1000);
    pool.sweeper.unref?.();
  }
}

/** The exchange is off this socket: it no longer answers to it (its timer is the caller's to stop). */
function release(c: Conn): Exchange | null {
  const ex = c.ex;
  c.ex = null;
  c.pool.busy.delete(c);
  return ex;
}

function settle(c: Conn, reusable: boolean): void {
  const ex = release(c)!;
  clearTimeout(ex.timer);
  const text = bodyText(ex);
  // An answer that came before the whole request went out (an early 413, say): the rest of the
  // request would reach the server as the start of the next one, so the socket is not reused.
  if (reusable && c.out === null && !c.closed && !c.pool.closed) park(c);
  else close(c);
  ex.resolve({ status: ex.status, location: ex.location, text });
}

function fail(c: Conn, why: string, timedOut = false): void {
  const ex = release(c);
  close(c);
  if (!ex) return;
  // Sent again: its timer keeps running (one time limit for the POST, whichever socket carries it).
  if (!ex.seen && !timedOut && ex.retry && !c.pool.closed) ex.retry();
  else {
    clearTimeout(ex.timer);
    ex.reject(new PostError(why, timedOut));
  }
}

/** Settle the exchange once its response is complete (or fail it when malformed). */
function step(c: Conn, ex: Exchange): void {
  const v = advance(ex);
  if (typeof v === 'string') fail(c, v);
  else if (v !== MORE) settle(c, v === DONE);
}

function write(c: Conn): void {
  const s = c.socket;
  const out = c.out;
  if (!s || out === null) return;
  const n = Math.max(0, s.write(out));
  if (n >= c.outBytes) c.out = null;
  else {
    // The kernel took part of it (its count is in bytes): the rest, as bytes, on drain.
    const rest = (typeof out === 'string' ? Buffer.from(out, 'utf8') : out).subarray(n);
    c.out = rest;
    c.outBytes = rest.length;
  }
}

const handlers = {
  data(s: Socket<Conn>, chunk: Buffer) {
    const c = s.data;
    const ex = c.ex;
    // Bytes nobody asked for (a response after the one we read): the socket cannot be trusted.
    if (!ex) return fail(c, 'unexpected data');
    ex.seen = true;
    ex.buf = ex.buf.length === 0 ? chunk : Buffer.concat([ex.buf, chunk]);
    step(c, ex);
  },
  drain(s: Socket<Conn>) {
    write(s.data);
  },
  end(s: Socket<Conn>) {
    const c = s.data;
    const ex = c.ex;
    if (ex && readsToEnd(ex)) settle(c, false);
    else fail(c, 'connection closed before the whole response');
  },
  close(s: Socket<Conn>) {
    const c = s.data;
    c.closed = true;
    c.socket = null;
    fail(c, 'connection closed before the whole response');
  },
  error(s: Socket<Conn>, e: Error) {
    fail(s.data, e.message);
  },
  connectError(s: Socket<Conn>, e: Error) {
    fail(s.data, e.message);
  },
};

function exchange(resolve: (a: PostAnswer) => void, reject: (e: Error) => void): Exchange {
  return { ...newResponse(), resolve, reject, timer: undefined, retry: null, seen: false };
}

/** Where an href connects and what its request line and Host header say: parsed once per href. */
interface Target {
  key: string;
  hostname: string;
  port: number;
  /** `POST <path> HTTP/1.1\r\nHost: <host>\r\n` for the URL's own host. */
  start: string;
  path: string;
}
const targets = new Map<string, Target>();
const TARGET_CACHE_LIMIT = 1_000;
/** Anything but printable ASCII and tab: no line break can be injected, and the head is one byte per character. */
const UNSAFE = /[^\t\x20-\x7e]/;

function targetOf(href: string): Target | string {
  const known = targets.get(href);
  if (known) return known;
  const url = new URL(href);
  if (url.protocol !== 'http:') return `postHttp1: not an http URL: ${url.protocol}`;
  const path = `${url.pathname}${url.search}`;
  const t: Target = {
    key: url.host,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: Number(url.port || 80),
    start: `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\n`,
    path,
  };
  if (targets.size >= TARGET_CACHE_LIMIT) targets.clear();
  targets.set(href, t);
  return t;
}

export interface Http1Client {
  /**
   * POST `body` to `href` (http: only) with `headers` (Host, from `host` or the URL, and
   * Content-Length are added). Resolves with any status; rejects with a PostError on connect or
   * socket errors, after `timeoutMs` (timedOut; the socket is closed) or once the client is closed.
   */
  post(href: string, host: string | undefined, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostAnswer>;
  /** Fail the POSTs under way and close every socket; later POSTs fail at once. */
  close(): void;
}

export function createHttp1Client(): Http1Client {
  const pool: Pool = { idle: new Map(), busy: new Set(), sweeper: undefined, closed: false };

  function post(href: string, host: string | undefined, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostAnswer> {
    if (pool.closed) return Promise.reject(new PostError('aborted: client closed'));
    const t = targetOf(href);
    if (typeof t === 'string') return Promise.reject(new PostError(t));
    let head = host === undefined ? t.start : `POST ${t.path} HTTP/1.1\r\nHost: ${host}\r\n`;
    let fields = '';
    for (const name in headers) {
      const value = headers[name]!;
      // Header injection: names and values are the dispatcher's own, but never let a line break through.
      if (UNSAFE.test(name) || UNSAFE.test(value)) return Promise.reject(new PostError(`header ${JSON.stringify(name)} is not printable ASCII`));
      fields += `${name}: ${value}\r\n`;
    }
    if (host !== undefined && UNSAFE.test(host)) return Promise.reject(new PostError('the Host is not printable ASCII'));
    const bodyBytes = Buffer.byteLength(body, 'utf8');
    head += `${fields}Content-Length: ${bodyBytes}\r\n\r\n`;
    const request = head + body;
    // The head is ASCII (URL-encoded path, checked header values): one byte per character.
    const requestBytes = head.length + bodyBytes;
    const { key, hostname, port } = t;

    return new Promise<PostAnswer>((resolve, reject) => {
      const ex = exchange(resolve, reject);
      let current: Conn | null = null;
      ex.timer = setTimeout(() => {
        if (current?.ex === ex) fail(current, `timeout after ${timeoutMs} ms`, true);
      }, timeoutMs);
      const start = (reuse: boolean) => {
        let c: Conn | undefined;
        if (reuse) {
          const list = pool.idle.get(key);
          while (list && list.length > 0 && !c) {
            const x = list.pop()!;
            if (!x.closed) c = x;
          }
        }
        // A reused socket may have been closed by the server while idle: then once more on a new one.
        ex.retry = c ? () => start(false) : null;
        if (!c) {
          c = { pool, key, socket: null, closed: false, out: request, outBytes: requestBytes, ex, idleSince: 0 };
          const fresh = c;
          Bun.connect<Conn>({
            hostname,
            port,
            data: fresh,
            socket: {
              ...handlers,
              open(s) {
                fresh.socket = s;
                // The process may end with idle keep-alive sockets open; a POST under way holds its timer.
                s.unref();
                if (fresh.closed) s.end();
                else write(fresh);
              },
            },
          }).catch((e: Error) => fail(fresh, e.message));
        } else {
          c.ex = ex;
          c.out = request;
          c.outBytes = requestBytes;
        }
        current = c;
        pool.busy.add(c);
        if (c.socket) write(c);
      };
      start(true);
    });
  }

  return {
    post,
    close() {
      pool.closed = true;
      clearInterval(pool.sweeper);
      for (const c of [...pool.busy]) fail(c, 'aborted: client closed');
      for (const list of pool.idle.values()) for (const c of list) close(c);
      pool.idle.clear();
    },
  };
}
