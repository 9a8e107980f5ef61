// One HTTP attempt of one delivery: resolve the host, refuse addresses the URL policy forbids,
// then connect to exactly that checked address (Host header and TLS name kept), so DNS
// rebinding between set-endpoint and now cannot reach an internal host. Redirects are never
// followed: a 3xx is a failed attempt.
import { checkServerIdentity } from 'node:tls';
import { isIP } from 'node:net';
import { PostError, type Http1Client, type PostAnswer } from './post-http1';
import { bareHost, checkUrlShape, resolveAllowed, type Lookup, type UrlPolicy } from './url-policy';

export type FetchFn = (input: string | URL, init: RequestInit & { tls?: Record<string, unknown> }) => Promise<Response>;

export interface SendInput {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  policy: UrlPolicy;
  lookup: Lookup;
  fetch: FetchFn;
  /**
   * When given, http:// routes are POSTed with it instead of `fetch` (post-http1.ts: a socket on
   * this thread, no wake of Bun's HTTP client thread per send); https:// ones always use `fetch`.
   */
  post?: Http1Client['post'];
  /** Aborts the attempt (dispatcher stop; with `post`, the dispatcher also closes its client); the outcome is then `aborted`. */
  signal?: AbortSignal;
}

export interface SendOutcome {
  ok: boolean;
  /** HTTP status, or null when no response arrived (refused, connect error, timeout). */
  status: number | null;
  error: string | null;
  /** Aborted by the dispatcher stopping: not an attempt the receiver should be charged for. */
  aborted?: boolean;
}

/** How much of a failing response body is kept in lastError: a short hint, not the receiver's page. */
const ERROR_BODY_CHARS = 64;

/** Where one attempt connects: the checked target URL, and the Host header and TLS name it needs. */
interface Route {
  href: string;
  host?: string;
  tls?: Record<string, unknown>;
}

/**
 * Routes of URLs whose host is an IP address: their verdict depends on the URL and the policy
 * only (no DNS answer that could change), so it is worked out once, not per attempt. A host name
 * is resolved and checked on every attempt, as before (DNS rebinding).
 */
const literalRoutes = new Map<string, Route | string>();
const ROUTE_CACHE_LIMIT = 1_000;

const routeKey = (input: SendInput) => `${input.policy.mode} ${input.policy.allowPrivateUrls} ${input.url}`;

async function routeOf(input: SendInput, key: string): Promise<Route | string> {
  const url = checkUrlShape(input.url, input.policy);
  if (typeof url === 'string') return `refused: ${url}`;
  const addresses = await resolveAllowed(url, input.policy, input.lookup);
  if (typeof addresses === 'string') return `refused: ${addresses}`;
  const host = bareHost(url);
  if (isIP(host)) {
    const route: Route = { href: url.href };
    if (literalRoutes.size >= ROUTE_CACHE_LIMIT) literalRoutes.clear();
    literalRoutes.set(key, route);
    return route;
  }
  // Prefer IPv4: hosts without IPv6 routes are common; all addresses passed the policy.
  const target = new URL(url.href);
  const ip = addresses.find((a) => isIP(a) === 4) ?? addresses[0]!;
  target.hostname = isIP(ip) === 6 ? `[${ip}]` : ip;
  const tls = url.protocol === 'https:' ? { serverName: host, checkServerIdentity: (_: string, cert: never) => checkServerIdentity(host, cert) } : undefined;
  return { href: target.href, host: url.host, tls };
}

export async function sendDelivery(input: SendInput): Promise<SendOutcome> {
  // A known literal route without a turn through a promise (one per send otherwise).
  const key = routeKey(input);
  const route = literalRoutes.get(key) ?? (await routeOf(input, key));
  if (typeof route === 'string') return { ok: false, status: null, error: route };
  const stop = input.signal;
  if (input.post && route.tls === undefined && route.href.startsWith('http:')) {
    // The client keeps its own timer (no controller per send); the dispatcher closes it to stop.
    try {
      return judge(await input.post(route.href, route.host, input.headers, input.body, input.timeoutMs));
    } catch (e) {
      if (stop?.aborted) return { ok: false, status: null, error: 'aborted: dispatcher stopping', aborted: true };
      if (e instanceof PostError && e.timedOut) return { ok: false, status: null, error: `timeout after ${input.timeoutMs} ms` };
      return { ok: false, status: null, error: `request failed: ${(e as Error).message ?? String(e)}` };
    }
  }
  const headers: Record<string, string> = route.host === undefined ? input.headers : { ...input.headers, Host: route.host };
  const tls = route.tls;

  // One controller per attempt, aborted by its own timer (cleared when the attempt ends) or by the
  // dispatcher stopping. Not AbortSignal.timeout + AbortSignal.any: that timer stays armed for the
  // whole timeoutMs after the attempt ended (tens of thousands of them at thousands of sends/s),
  // and each any() hangs one more dependent signal on the dispatcher's long-lived one.
  const ctrl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctrl.abort();
  }, input.timeoutMs);
  const onStop = () => ctrl.abort();
  if (stop?.aborted) ctrl.abort();
  else stop?.addEventListener('abort', onStop);
  try {
    const res = await input.fetch(route.href, { method: 'POST', body: input.body, headers, redirect: 'manual', signal: ctrl.signal, ...(tls ? { tls } : {}) });
    const text = await readBounded(res);
    return judge({ status: res.status, location: res.headers.get('location'), text });
  } catch (e) {
    if (stop?.aborted) return { ok: false, status: null, error: 'aborted: dispatcher stopping', aborted: true };
    if (timedOut) return { ok: false, status: null, error: `timeout after ${input.timeoutMs} ms` };
    return { ok: false, status: null, error: `request failed: ${(e as Error).message ?? String(e)}` };
  } finally {
    clearTimeout(timer);
    stop?.removeEventListener('abort', onStop);
  }
}

/** An answer as an outcome: 2xx delivered; a redirect is not followed; else the status and the body's start. */
function judge({ status, location, text }: PostAnswer): SendOutcome {
  if (status >= 200 && status < 300) return { ok: true, status, error: null };
  const why =
    status >= 300 && status < 400
      ? `redirect not followed (Location: ${location ?? '-'})`
      : `HTTP ${status}${text ? `: ${text.slice(0, ERROR_BODY_CHARS)}` : ''}`;
  return { ok: false, status, error: why };
}

/** Drain at most a few KiB of the body: frees the connection for keep-alive without letting a
 *  receiver stream an endless body at us; returns the start of it for lastError. */
async function readBounded(res: Response): Promise<string> {
  // A declared small body (the usual "ok"): read it in one go, before touching `res.body`, which
  // makes Bun build a ReadableStream for it (a stream per send, and text() then reads through it).
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared >= 0 && declared <= 4096) return (await res.text()).slice(0, ERROR_BODY_CHARS);
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size < 4096) chunks.push(value);
    size += value.byteLength;
    if (size > 65536) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8', 0, Math.min(size, 4096)).slice(0, ERROR_BODY_CHARS);
}
