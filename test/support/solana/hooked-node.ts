// The local Solana as the tests' e2e races need it: USDC minted, a few wallets funded, and a JSON-RPC
// front that lets a test answer or slow some calls (blind the detectors, slow a read so two requests
// overlap) while every other call reaches the real node unchanged.
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { DEVNET_USDC_MINT, startLocalSolana, type LocalSolana } from './local-solana';

export type RpcCall = { id?: unknown; method?: string };
/** Results to answer the calls with (one per call), or undefined to forward them to the node. */
export type RpcHook = (calls: RpcCall[]) => Promise<unknown[] | undefined> | unknown[] | undefined;

export interface HookedSolana {
  sol: LocalSolana;
  wallets: KeyPairSigner[];
  /** The front's URL: give it to the server as the network's rpc. */
  rpc: string;
  stop(): Promise<void>;
}

export async function startHookedSolana(walletCount: number, hook: RpcHook): Promise<HookedSolana> {
  const sol = await startLocalSolana({ slotMs: 40 });
  sol.createMint({ address: DEVNET_USDC_MINT, decimals: 6 });
  const wallets = await Promise.all(Array.from({ length: walletCount }, () => generateKeyPairSigner()));
  for (const w of wallets) {
    sol.airdrop(w.address, 10_000_000_000n);
    await sol.setTokenBalance(DEVNET_USDC_MINT, w.address, 1_000_000_000n);
  }
  const front = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const body = await req.text();
      const parsed = JSON.parse(body) as RpcCall | RpcCall[];
      const answers = await hook([parsed].flat());
      if (answers) {
        const out = answers.map((result, k) => ({ jsonrpc: '2.0', id: [parsed].flat()[k]!.id, result }));
        return Response.json(Array.isArray(parsed) ? out : out[0]);
      }
      const r = await fetch(sol.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return new Response(await r.text(), { status: r.status, headers: { 'content-type': 'application/json' } });
    },
  });
  return {
    sol,
    wallets,
    rpc: `http://127.0.0.1:${front.port}`,
    async stop() {
      await front.stop(true);
      await sol.stop();
    },
  };
}

/** A hook that answers getSignaturesForAddress with nothing while `blind()` says so: the detectors see no history. */
export const blindSignatures =
  (blind: () => boolean = () => true): RpcHook =>
  (calls) =>
    blind() && calls.every((c) => c.method === 'getSignaturesForAddress') ? calls.map(() => []) : undefined;
