// Detection cost (contract 11): through the real server with anvil behind a recording proxy,
// 40 open intents on 2 requestors make ONE eth_getLogs per poll whose recipient topic lists the 2
// distinct requestors: the cost follows receiving accounts, not open intents.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/api';
import { startAnvil, DEV_KEYS, type Anvil } from '../support/evm/anvil';
import { deployToken } from '../support/evm/token';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

const BASE = 'eip155:84532';
let anvil: Anvil;
let s: TestServer;
let api: ApiClient;
let proxy: ReturnType<typeof Bun.serve>;
/** Every JSON-RPC payload the server sent, as the list of its calls. */
const payloads: Array<Array<{ method: string; params: any[] }>> = [];

beforeAll(async () => {
  anvil = await startAnvil('base', ['--block-time', '0.2']);
  const usdc = await deployToken(anvil, { [privateKeyToAccount(DEV_KEYS[1]).address]: 1_000_000n });
  proxy = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const body = await req.text();
      const parsed = JSON.parse(body);
      payloads.push((Array.isArray(parsed) ? parsed : [parsed]).map((c: any) => ({ method: c.method, params: c.params })));
      const upstream = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return new Response(await upstream.text(), { headers: { 'content-type': 'application/json' } });
    },
  });
  s = await startTestServer({
    networks: { [BASE]: { rpc: [`http://127.0.0.1:${proxy.port}`], pollIntervalMs: 50, tokens: { USDC: { address: usdc, decimals: 6 } } } },
  });
  api = s.api((await s.account()).key);
}, 60_000);

afterAll(async () => {
  await s?.stop();
  proxy?.stop(true);
  await anvil?.stop();
});

describe('EVM detection cost', () => {
  it('40 open intents on 2 requestors: one eth_getLogs per poll over the 2 receivers', async () => {
    const requestors = [privateKeyToAccount(generatePrivateKey()).address, privateKeyToAccount(generatePrivateKey()).address];
    for (let i = 0; i < 40; i++) {
      const r = await api.post('/v1/intents', { chain: BASE, token: 'USDC', amount: `${i + 1}`, requestor: requestors[i % 2] });
      expect(r.status).toBe(201);
    }
    const start = payloads.length;
    const polls = () => payloads.slice(start).filter((p) => p.some((c) => c.method === 'eth_getLogs'));
    await waitFor(() => polls().length >= 5, 20_000, 'five detection polls');
    const steady = polls().slice(1); // the first poll may add the look-back for newly seen receivers
    for (const p of steady) {
      const logs = p.filter((c) => c.method === 'eth_getLogs');
      expect(logs).toHaveLength(1);
      const filter = logs[0]!.params[0];
      expect(filter.address).toHaveLength(1);
      expect(filter.topics[2].map((t: string) => `0x${t.slice(-40)}`).sort()).toEqual(requestors.map((a) => a.toLowerCase()).sort());
    }
    // No call per intent anywhere: nothing in these polls grows with the 40 intents.
    for (const p of polls()) expect(p.length).toBeLessThanOrEqual(3);
  });
});
