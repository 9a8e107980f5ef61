// The upstream RPC pool: JSON-RPC 2.0 over HTTP POST to an ordered list of upstreams, with a
// per-attempt timeout, failover on transport failures and a circuit breaker per upstream.
// Upstream URLs often carry API keys, so errors and status() only ever show a redacted label.
import { createBreaker, type Breaker } from './breaker';
import { RpcCallError, RpcUnavailableError, type JsonRpcResponse, type RpcPool } from './types';

export interface RpcPoolOptions {
  chain: string;
  urls: string[];
  /** Per attempt (one upstream), covering connect, headers and body. */
  timeoutMs: number;
  breakerFailures: number;
  breakerCooldownMs: number;
  retryAfterSeconds: number;
  fetch?: typeof fetch;
  /** The breakers' clock (tests drive cooldowns with it instead of sleeping). */
  now?: () => number;
}

interface Upstream {
  url: string;
  label: string;
  breaker: Breaker;
}

/**
 * Transport failure: the upstream did not answer, so the next one is tried. `reached` is false
 * only when the request provably never got to the node (connection refused, unknown host, 429).
 */
class TransportError extends Error {
  override name = 'TransportError';
  constructor(message: string, readonly reached: boolean) {
    super(message);
  }
}

// Errors that happen before a single byte of the request reaches the upstream.
const NOT_REACHED_CODES = new Set(['ECONNREFUSED', 'ConnectionRefused', 'ENOTFOUND', 'EAI_AGAIN', 'FailedToOpenSocket', 'ERR_INVALID_URL']);

/** scheme://host[:port] plus "/…" when a path or query (where keys usually live) was dropped. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const rest = u.pathname !== '/' || u.search !== '' ? '/…' : '';
    return `${u.protocol}//${u.host}${rest}`;
  } catch {
    return '<invalid url>';
  }
}

export function createRpcPool(opts: RpcPoolOptions): RpcPool {
  if (opts.urls.length === 0) throw new Error(`rpc pool for ${opts.chain}: no upstream URLs`);
  const doFetch = opts.fetch ?? fetch;
  const now = opts.now ?? Date.now;
  const upstreams: Upstream[] = opts.urls.map((url, i) => ({
    url,
    label: `#${i} ${redactUrl(url)}`,
    breaker: createBreaker({ failures: opts.breakerFailures, cooldownMs: opts.breakerCooldownMs }),
  }));
  let nextId = 1;

  async function attempt(up: Upstream, body: string): Promise<unknown> {
    let res: Response;
    let text: string;
    try {
      res = await doFetch(up.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      if (res.status >= 500 || res.status === 429) {
        await res.body?.cancel().catch(() => {});
        throw new TransportError(`HTTP ${res.status}`, res.status !== 429);
      }
      text = await res.text();
    } catch (e) {
      if (e instanceof TransportError) throw e;
      const code = (e as { code?: unknown }).code;
      throw new TransportError(describe(e, up), !(typeof code === 'string' && NOT_REACHED_CODES.has(code)));
    }
    // Any other status with a JSON body is an answer (some providers send 4xx + JSON-RPC error).
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new TransportError(`HTTP ${res.status}, unparseable body`, true);
    }
    if (parsed === null || typeof parsed !== 'object') {
      throw new TransportError(`HTTP ${res.status}, body is not a JSON-RPC object or array`, true);
    }
    return parsed;
  }

  function unavailable(failures: Error[], reached: boolean): RpcUnavailableError {
    return new RpcUnavailableError(`No RPC upstream for ${opts.chain} answered; retry later`, reached, {
      details: { retry_after: opts.retryAfterSeconds, chain: opts.chain },
      cause: new AggregateError(failures, `rpc ${opts.chain}: ${failures.map((f) => f.message).join('; ')}`),
    });
  }

  async function request(payload: unknown): Promise<unknown> {
    const body = JSON.stringify(payload);
    const failures: Error[] = [];
    let reached = false;
    const tryOne = async (up: Upstream): Promise<{ answer: unknown } | null> => {
      try {
        const answer = await attempt(up, body);
        up.breaker.success();
        return { answer };
      } catch (e) {
        up.breaker.failure(now());
        if (!(e instanceof TransportError) || e.reached) reached = true;
        failures.push(new Error(`${up.label}: ${(e as Error).message}`));
        return null;
      }
    };
    // Acquire lazily, one upstream at a time: claiming a half-open probe slot we never use
    // would keep that upstream skipped forever.
    let tried = 0;
    for (const up of upstreams) {
      if (!up.breaker.tryAcquire(now())) continue;
      tried += 1;
      const got = await tryOne(up);
      if (got) return got.answer;
    }
    // Every breaker open: trying the one that failed longest ago beats refusing without a try.
    if (tried === 0) {
      const oldest = upstreams.reduce((a, b) => (b.breaker.lastFailureAt < a.breaker.lastFailureAt ? b : a));
      const got = await tryOne(oldest);
      if (got) return got.answer;
    }
    throw unavailable(failures, reached);
  }

  /** One upstream, no failover: the node every read of one decision comes from. */
  function pinned(up: Upstream): RpcPool {
    const view: RpcPool = {
      chain: opts.chain,
      pinnedTo: up.label,
      async request(payload: unknown): Promise<unknown> {
        try {
          const answer = await attempt(up, JSON.stringify(payload));
          up.breaker.success();
          return answer;
        } catch (e) {
          up.breaker.failure(now());
          throw unavailable([new Error(`${up.label}: ${(e as Error).message}`)], !(e instanceof TransportError) || e.reached);
        }
      },
      call: (method, params) => callVia(view.request, method, params),
      pin: () => view,
      pinEach: () => [view],
      status: () => pool.status(),
    };
    return view;
  }

  async function callVia<T>(send: (payload: unknown) => Promise<unknown>, method: string, params: unknown[] = []): Promise<T> {
    const answer = (await send({ jsonrpc: '2.0', id: nextId++, method, params })) as JsonRpcResponse;
    if (Array.isArray(answer)) throw new RpcCallError(-32603, 'upstream answered a single call with a batch');
    if (answer.error) throw new RpcCallError(answer.error.code, answer.error.message, answer.error.data);
    return answer.result as T;
  }

  const pool: RpcPool = {
    chain: opts.chain,
    pinnedTo: null,
    request,
    call: (method, params) => callVia(request, method, params),
    pin() {
      // The first upstream its breaker admits; with every breaker open, the one that failed longest ago.
      const up =
        upstreams.find((u) => u.breaker.tryAcquire(now())) ??
        upstreams.reduce((a, b) => (b.breaker.lastFailureAt < a.breaker.lastFailureAt ? b : a));
      return pinned(up);
    },
    pinEach() {
      // No probe slot is claimed here: a view's own answers feed its upstream's breaker.
      const t = now();
      return upstreams.filter((u) => u.breaker.state(t) !== 'open').map(pinned);
    },
    status() {
      const t = now();
      return upstreams.map((u) => ({ url: u.label, state: u.breaker.state(t), failures: u.breaker.failures }));
    },
  };
  return pool;
}

/** A fetch error as text without the URL (Bun puts it in messages and in `path`). */
function describe(e: unknown, up: Upstream): string {
  if (!(e instanceof Error)) return 'request failed';
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'timed out';
  const code = (e as { code?: unknown }).code;
  let msg = e.message.split(up.url).join(redactUrl(up.url));
  try {
    msg = msg.split(new URL(up.url).href).join(redactUrl(up.url));
  } catch {
    // an invalid URL never reached the network, so it is not in the message either
  }
  return `${e.name}${typeof code === 'string' ? ` ${code}` : ''}: ${msg}`;
}
