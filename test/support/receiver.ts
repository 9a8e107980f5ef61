// A real webhook receiver on loopback for tests and benches: Bun.serve on port 0 that records
// each request's raw body and headers, and answers with a programmable status and delay.
import type { Server } from 'bun';

export interface ReceivedRequest {
  method: string;
  /** Path and query, e.g. `/hooks/a`. */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The raw body exactly as received (signatures are over these bytes). */
  body: string;
  receivedAt: number;
}

export interface Reply {
  status?: number;
  /** Wait this long before answering (a slow receiver, or one past the sender's timeout). */
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string;
}

export type Handler = (req: ReceivedRequest, index: number) => Reply | Promise<Reply>;

export interface Receiver {
  /** Base URL, `http://127.0.0.1:<port>` (https with `tls`); append any path. */
  origin: string;
  url(path?: string): string;
  port: number;
  requests: ReceivedRequest[];
  /** Requests whose path starts with `prefix`. */
  on(prefix: string): ReceivedRequest[];
  /** Replies for the next requests, in order; afterwards the handler (default 200) answers. */
  queue(...replies: Reply[]): void;
  setHandler(h: Handler): void;
  /** Resolve once at least `n` requests (optionally under `prefix`) have arrived. */
  waitFor(n: number, opts?: { prefix?: string; timeoutMs?: number }): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export function startReceiver(opts: { hostname?: string; tls?: { cert: string; key: string } } = {}): Receiver {
  const requests: ReceivedRequest[] = [];
  const queued: Reply[] = [];
  let handler: Handler = () => ({ status: 200 });
  const waiters = new Set<() => void>();

  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: opts.hostname ?? '127.0.0.1',
    idleTimeout: 0,
    ...(opts.tls ? { tls: opts.tls } : {}),
    async fetch(req) {
      const u = new URL(req.url);
      const rec: ReceivedRequest = {
        method: req.method,
        path: u.pathname + u.search,
        headers: Object.fromEntries([...req.headers].map(([k, v]) => [k.toLowerCase(), v])),
        body: await req.text(),
        receivedAt: Date.now(),
      };
      const index = requests.push(rec) - 1;
      for (const w of waiters) w();
      const reply = queued.length > 0 ? queued.shift()! : await handler(rec, index);
      if (reply.delayMs) await Bun.sleep(reply.delayMs);
      return new Response(reply.body ?? 'ok', { status: reply.status ?? 200, headers: reply.headers });
    },
  });

  const origin = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${server.port}`;
  const on = (prefix: string) => requests.filter((r) => r.path.startsWith(prefix));
  return {
    origin,
    url: (path = '/hooks') => origin + path,
    port: server.port!,
    requests,
    on,
    queue: (...r) => void queued.push(...r),
    setHandler: (h) => void (handler = h),
    waitFor(n, o = {}) {
      const got = () => (o.prefix === undefined ? requests : on(o.prefix));
      if (got().length >= n) return Promise.resolve(got());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: ${got().length}/${n} requests after ${o.timeoutMs ?? 10_000} ms`));
        }, o.timeoutMs ?? 10_000);
        const check = () => {
          if (got().length < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(got());
        };
        waiters.add(check);
      });
    },
    close: async () => {
      await server.stop(true);
    },
  };
}
