// Bench receiver, run as its own process so it does not share the dispatcher's event loop:
// listens on N loopback ports (N distinct endpoints/origins), answers 200 at once, and prints
// the ports as one JSON line.
const n = Number(process.argv[2] ?? 1);
const servers = Array.from({ length: n }, () =>
  Bun.serve({ port: 0, hostname: '127.0.0.1', async fetch(req) { await req.arrayBuffer(); return new Response('ok'); } }),
);
process.stdout.write(`${JSON.stringify(servers.map((s) => s.port))}\n`);
process.on('SIGTERM', () => process.exit(0));
