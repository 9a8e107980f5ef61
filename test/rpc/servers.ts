// Real local JSON-RPC upstreams for the pool tests: each a Bun.serve on port 0 that counts hits.
import type { Server } from 'bun';

export interface Upstream {
  url: string;
  hits: () => number;
  stop: () => Promise<void>;
}

type Handler = (body: unknown, req: Request) => Response | Promise<Response>;

const servers: Array<Server<unknown>> = [];

export function upstream(handler: Handler): Upstream {
  let hits = 0;
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      hits += 1;
      const text = await req.text();
      return handler(JSON.parse(text), req);
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}/`, hits: () => hits, stop: () => server.stop(true) };
}

/** Answers eth_blockNumber-style calls with a fixed result; batches element by element. */
export function answering(result: unknown = '0x10'): Upstream {
  return upstream((body) => {
    const one = (m: { id: unknown; method: string }) =>
      m.method === 'fail'
        ? { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } }
        : { jsonrpc: '2.0', id: m.id, result };
    return Response.json(Array.isArray(body) ? body.map(one) : one(body as { id: unknown; method: string }));
  });
}

export const status = (code: number, text = 'upstream broke') => upstream(() => new Response(text, { status: code }));

export const slow = (ms: number) =>
  upstream(async (body) => {
    await Bun.sleep(ms);
    return Response.json({ jsonrpc: '2.0', id: (body as { id: unknown }).id, result: 'late' });
  });

/** A port nothing listens on: bind one, note the port, close it. */
export async function deadUrl(): Promise<string> {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') });
  const url = `http://127.0.0.1:${s.port}/`;
  await s.stop(true);
  return url;
}

export async function stopAll(): Promise<void> {
  await Promise.all(servers.splice(0).map((s) => s.stop(true)));
}
