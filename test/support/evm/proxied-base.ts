// Base Sepolia on anvil (automine: one block per transaction, `finalized` two blocks behind), a
// USDC token funding one payer, and a real server whose only RPC upstream is a proxy in front of
// anvil: every JSON-RPC batch the server sends passes `onBatch`, which may read it (what the
// chain watcher saw) or change the answers (hold a read back). The reorg e2e tests share it.
import type { PrivateKeyAccount } from 'viem/accounts';
import { startTestServer, type ApiClient, type TestServer } from '../server';
import { startAnvil, type Anvil } from './anvil';
import { deployToken } from './token';

export const BASE = 'eip155:84532';

export type RpcCall = { id: number; method: string; params: unknown[] };
export type RpcAnswer = { id: number; result?: any; error?: unknown };

export interface ProxiedBase {
  anvil: Anvil;
  server: TestServer;
  api: ApiClient;
  stop(): Promise<void>;
}

/** `onBatch` returns true when it changed `answers` (they are sent instead of anvil's own reply). */
export async function startProxiedBase(payer: PrivateKeyAccount, onBatch: (calls: RpcCall[], answers: RpcAnswer[]) => boolean): Promise<ProxiedBase> {
  const anvil = await startAnvil('base');
  const usdc = await deployToken(anvil, { [payer.address]: 100_000_000n });
  const proxy = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const body = await req.text();
      const upstream = await (await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text();
      const calls = [JSON.parse(body)].flat() as RpcCall[];
      const answers = [JSON.parse(upstream)].flat() as RpcAnswer[];
      const reply = onBatch(calls, answers) ? JSON.stringify(answers) : upstream;
      return new Response(reply, { headers: { 'content-type': 'application/json' } });
    },
  });
  const server = await startTestServer({
    networks: { [BASE]: { rpc: [`http://127.0.0.1:${proxy.port}`], pollIntervalMs: 50, tokens: { USDC: { address: usdc, decimals: 6 } } } },
  });
  const api = server.api((await server.account({ plan: 'pro' })).key);
  return {
    anvil,
    server,
    api,
    async stop() {
      await server.stop();
      proxy.stop(true);
      await anvil.stop();
    },
  };
}
