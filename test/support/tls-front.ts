// An HTTPS front for a test server, as a TLS-terminating proxy is in production: Solana Pay
// wallets only follow https links. The certificate (test/support/tls, CN and SAN 127.0.0.1,
// self-signed, test-only) is trusted by `trustedFetch`, the way a wallet trusts a real CA.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(import.meta.dirname, 'tls');
export const TEST_CA = readFileSync(join(DIR, 'localhost.crt'), 'utf8');
const KEY = readFileSync(join(DIR, 'localhost.key'), 'utf8');

export interface TlsFront {
  url: string;
  /** Where requests go (set once the server behind it listens). */
  target: string | null;
  stop(): Promise<void>;
}

/** Listen first (the server's publicUrl must be known before it starts), forward once `target` is set. */
export function startTlsFront(): TlsFront {
  const front: TlsFront = {
    url: '',
    target: null,
    stop: async () => void (await server.stop(true)),
  };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    tls: { cert: TEST_CA, key: KEY },
    async fetch(req) {
      if (!front.target) return new Response('no server behind the front yet', { status: 502 });
      const u = new URL(req.url);
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.arrayBuffer();
      return plainFetch(`${front.target}${u.pathname}${u.search}`, { method: req.method, headers: req.headers, body, redirect: 'manual' });
    },
  });
  front.url = `https://127.0.0.1:${server.port}`;
  return front;
}

const plainFetch = globalThis.fetch;

/** fetch that also trusts the test certificate (Bun's per-request TLS option). */
export const trustedFetch = ((input: string | URL | Request, init?: RequestInit) =>
  plainFetch(input, { ...init, tls: { ca: TEST_CA } } as RequestInit)) as typeof fetch;

/**
 * Make this process trust the test certificate, as a wallet trusts a real CA: library code that
 * calls the global fetch (the Solana Pay wallet library) reaches the front. Returns the undo.
 */
export function trustTestCertificate(): () => void {
  globalThis.fetch = trustedFetch;
  return () => {
    globalThis.fetch = plainFetch;
  };
}
