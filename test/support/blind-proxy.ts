// A JSON-RPC proxy that answers some methods with a fixed result and forwards every other call
// (single or batched) to the real node: e.g. a node whose log and history searches find nothing,
// so the payment detectors stay blind and only the chain watcher can move an intent.
import { createServer, type Server } from 'node:http';

export interface BlindProxy {
  url: string;
  stop(): Promise<void>;
}

type Call = { id?: unknown; method?: string };

export async function startBlindProxy(upstream: string, answers: Record<string, unknown>): Promise<BlindProxy> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call | Call[];
      const calls = Array.isArray(parsed) ? parsed : [parsed];
      const forward = calls.filter((c) => !(String(c.method) in answers));
      let forwarded: Array<{ id?: unknown }> = [];
      if (forward.length > 0) {
        const r = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(forward) });
        forwarded = (await r.json()) as Array<{ id?: unknown }>;
      }
      const out = calls.map((c) =>
        String(c.method) in answers
          ? { jsonrpc: '2.0', id: c.id, result: answers[String(c.method)] }
          : forwarded.find((f) => f.id === c.id),
      );
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(Array.isArray(parsed) ? out : out[0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}
