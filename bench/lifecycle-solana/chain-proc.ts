// The local Solana (startLocalSolana) in its own process for bench/lifecycle-solana, so LiteSVM's
// slot clock and RPC server do not share PayForge's event loop (a real node never does).
// argv[2]: JSON { slotMs }. Prints one line `{"rpc": url, "control": url}`, then serves control:
//   POST /setup { mint, decimals, fund: string[], merchants: string[] } -> { fundAtas, merchantAtas }
//   GET  /counters -> { calls, unexpected }
//   POST /stop     -> stops the chain and exits
// It also exits by itself when its parent goes away (stdin closes) or after maxSeconds.
import { startLocalSolana } from '../../test/support/solana/local-solana';

const { slotMs, maxSeconds = 300 } = JSON.parse(process.argv[2] ?? '{}') as { slotMs: number; maxSeconds?: number };
const sol = await startLocalSolana({ slotMs });

const stop = async (code = 0) => {
  await sol.stop().catch(() => {});
  process.exit(code);
};
setTimeout(() => void stop(3), maxSeconds * 1000).unref();

const control = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === '/counters') return Response.json({ calls: sol.counters.calls, unexpected: sol.counters.unexpected });
    if (path === '/stop') {
      setTimeout(() => void stop(0), 10);
      return Response.json({ ok: true });
    }
    if (path === '/setup') {
      const b = (await req.json()) as { mint: string; decimals: number; fund: string[]; merchants: string[] };
      sol.createMint({ address: b.mint, decimals: b.decimals });
      const fundAtas: string[] = [];
      for (const a of b.fund) {
        sol.airdrop(a, 100_000_000_000n);
        fundAtas.push(await sol.setTokenBalance(b.mint, a, 1_000_000_000_000n));
      }
      const merchantAtas: string[] = [];
      for (const a of b.merchants) merchantAtas.push(await sol.setTokenBalance(b.mint, a, 0n));
      return Response.json({ fundAtas, merchantAtas });
    }
    return new Response('not found', { status: 404 });
  },
});

console.log(JSON.stringify({ rpc: sol.url, control: `http://127.0.0.1:${control.port}` }));
// The parent holds our stdin: when it exits (or is killed), stdin ends and so do we.
(async () => {
  for await (const _ of Bun.stdin.stream()) {
    /* drain */
  }
  await stop(0);
})();
