// A counting JSON-RPC proxy in its own process for bench/lifecycle-evm: forwards every POST to
// anvil unchanged and counts JSON-RPC calls by method (each call of a batch counts) and HTTP
// requests, so PayForge's RPC calls per intent can be read (anvil keeps no such counters).
// argv[2]: JSON { target }. Prints one line `{"url": ..., "control": ...}`; control serves
// GET /counters -> { calls, http } and POST /stop. Exits when its parent goes away (stdin closes).
export {};

const { target, maxSeconds = 300 } = JSON.parse(process.argv[2] ?? '{}') as { target: string; maxSeconds?: number };
const calls: Record<string, number> = {};
let http = 0;

const count = (body: unknown) => {
  for (const c of Array.isArray(body) ? body : [body]) {
    const m = typeof (c as { method?: unknown })?.method === 'string' ? (c as { method: string }).method : '<none>';
    calls[m] = (calls[m] ?? 0) + 1;
  }
};

const proxy = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const text = await req.text();
    http += 1;
    try {
      count(JSON.parse(text));
    } catch {
      calls['<unparsable>'] = (calls['<unparsable>'] ?? 0) + 1;
    }
    const up = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    return new Response(await up.arrayBuffer(), { status: up.status, headers: { 'content-type': 'application/json' } });
  },
});

const stop = (code = 0) => process.exit(code);
setTimeout(() => stop(3), maxSeconds * 1000).unref();
const control = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === '/counters') return Response.json({ calls, http });
    if (path === '/stop') {
      setTimeout(() => stop(0), 10);
      return Response.json({ ok: true });
    }
    return new Response('not found', { status: 404 });
  },
});

console.log(JSON.stringify({ url: `http://127.0.0.1:${proxy.port}`, control: `http://127.0.0.1:${control.port}` }));
(async () => {
  for await (const _ of Bun.stdin.stream()) {
    /* drain */
  }
  stop(0);
})();
