// A tiny HTTP proxy in front of an RPC upstream that a test can take down (503) and bring back,
// for failover and rpc.unavailable tests; it counts the requests it forwarded.
import { createServer, type Server } from 'node:http';

export interface RpcProxy {
  url: string;
  /** 'up' forwards; 'down' answers 503 without forwarding. */
  mode: 'up' | 'down';
  forwarded: number;
  refused: number;
  stop(): Promise<void>;
}

export async function startProxy(target: string): Promise<RpcProxy> {
  const state = { mode: 'up' as 'up' | 'down', forwarded: 0, refused: 0 };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (state.mode === 'down') {
      state.refused += 1;
      res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream down');
      return;
    }
    state.forwarded += 1;
    const upstream = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.concat(chunks),
    });
    res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  }) as RpcProxy;
}

/** A URL where nothing listens: connection refused at once. Port 9 (discard) is never served here. */
export const DEAD_URL = 'http://127.0.0.1:9';
