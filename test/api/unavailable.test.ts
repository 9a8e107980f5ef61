// 503s and 429 through the real server: a dead screening provider (nothing written), dead RPC
// upstreams for build and submit (intent unchanged), and the per-key rate limit.
import { privateKeyToAccount } from 'viem/accounts';
import { encodeFunctionData, erc20Abi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_SEPOLIA, EVM_ADDR, intentBody, SOL_ADDR, SOLANA_DEVNET, startTestServer, type TestServer } from '../support/server';
import { deadPort, eventTypes, expectError } from '../support/api';

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

function expect503(r: Awaited<ReturnType<ReturnType<TestServer['api']>['get']>>, code: string) {
  const e = expectError(r, 503, code);
  expect(Number.isInteger(e.details.retry_after)).toBe(true);
  expect(e.details.retry_after as number).toBeGreaterThan(0);
  expect(r.headers.get('retry-after')).toBe(String(e.details.retry_after));
  return e;
}

describe('503 screening.unavailable', () => {
  let s: TestServer;
  beforeAll(async () => {
    const port = await deadPort();
    s = await startTestServer({ screening: { provider: { url: `http://127.0.0.1:${port}`, apiKey: 'k', timeoutMs: 500 } } });
    servers.push(s);
  });

  it('create answers 503 with Retry-After and writes nothing (no intent, no event, no idempotency key)', async () => {
    const api = s.api((await s.account()).key);
    expect503(await api.post('/v1/intents', intentBody(), { 'idempotency-key': 'k1' }), 'screening.unavailable');
    expect503(await api.post('/v1/intents', { chain: SOLANA_DEVNET, token: 'USDC', amount: '1', requestor: SOL_ADDR }), 'screening.unavailable');
    expect((await api.get('/v1/intents')).body).toEqual({ intents: [], hasMore: false });
    expect((await api.get('/v1/events')).body).toEqual({ events: [], hasMore: false });
    // Validation still comes first.
    expectError(await api.post('/v1/intents', intentBody({ amount: '0' })), 400, 'request.invalid_param', 'amount');
  });
});

describe('503 rpc.unavailable for build and submit; intent unchanged', () => {
  let s: TestServer;
  beforeAll(async () => {
    const port = await deadPort();
    const rpc = [`http://127.0.0.1:${port}`];
    s = await startTestServer({
      networks: { [BASE_SEPOLIA]: { rpc }, [SOLANA_DEVNET]: { rpc }, 'eip155:42431': { rpc } },
      rpc: { timeoutMs: 500, breakerFailures: 3, breakerCooldownMs: 1000, retryAfterSeconds: 3 },
    });
    servers.push(s);
  });

  it('build on EVM, Tempo and Solana', async () => {
    const api = s.api((await s.account()).key);
    const bodies = [
      intentBody(),
      intentBody({ chain: 'eip155:42431', token: 'AlphaUSD' }),
      { chain: SOLANA_DEVNET, token: 'USDC', amount: '1', requestor: SOL_ADDR },
    ];
    const fulfillers = ['0x3333333333333333333333333333333333333333', '0x3333333333333333333333333333333333333333', 'So11111111111111111111111111111111111111112'];
    for (const [n, body] of bodies.entries()) {
      const i = (await api.post('/v1/intents', body)).body.intent;
      const e = expect503(await api.post(`/v1/intents/${i.id}/build`, { fulfiller: fulfillers[n] }), 'rpc.unavailable');
      expect(e.details.retry_after).toBe(3);
      expect((await api.get(`/v1/intents/${i.id}`)).body.intent).toEqual(i);
      expect(await eventTypes(api, i.id)).toEqual(['intent.created']);
    }
  });

  it('submit of a correctly signed EVM transfer', async () => {
    const api = s.api((await s.account()).key);
    const payer = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
    const i = (await api.post('/v1/intents', intentBody({ fulfiller: payer.address }))).body.intent;
    const signed = await payer.signTransaction({
      type: 'eip1559',
      chainId: 84532,
      nonce: 0,
      to: i.tokenAddress,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [EVM_ADDR, BigInt(i.amountBaseUnits)] }),
      value: 0n,
      gas: 100_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    });
    const b64 = Buffer.from(signed.slice(2), 'hex').toString('base64');
    expect503(await api.post(`/v1/intents/${i.id}/submit`, { signedTransaction: b64 }), 'rpc.unavailable');
    const after = (await api.get(`/v1/intents/${i.id}`)).body.intent;
    expect(after).toEqual(i);
    expect(after.state).toBe('created');
    expect(after.txSignature).toBeNull();
    expect(await eventTypes(api, i.id)).toEqual(['intent.created']);
  });
});

describe('429 rate_limit.exceeded', () => {
  it('per key, with Retry-After; another key is unaffected', async () => {
    const s = await startTestServer({ rateLimit: { perSecond: 1, burst: 3 } });
    servers.push(s);
    const a = await s.account();
    const api = s.api(a.key);
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof api.get>> | null = null;
    for (let n = 0; n < 6; n++) {
      const r = await api.get('/v1/intents');
      statuses.push(r.status);
      if (r.status === 429) limited = r;
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses).toContain(429);
    const e = expectError(limited!, 429, 'rate_limit.exceeded');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(e.details.retry_after).toBe(Number(limited!.headers.get('retry-after')));
    expect((await s.api(await s.key(a.accountId, 'test')).get('/v1/intents')).status).toBe(200);
  });
});

describe('503 rpc.unavailable when an upstream answers with a JSON-RPC error', () => {
  it('a submit by signature whose reads the node refuses is 503 with Retry-After, not 500', async () => {
    // A node that refuses every method (as one without getTransaction does): an upstream problem.
    const node = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: async (req) => {
        const body = (await req.json()) as { id: number } | Array<{ id: number }>;
        const answer = (c: { id: number }) => ({ jsonrpc: '2.0', id: c.id, error: { code: -32601, message: 'Method not found' } });
        return Response.json(Array.isArray(body) ? body.map(answer) : answer(body));
      },
    });
    try {
      const s = await startTestServer({ networks: { [SOLANA_DEVNET]: { rpc: [`http://127.0.0.1:${node.port}`] } } });
      servers.push(s);
      const api = s.api((await s.account()).key);
      const i = (await api.post('/v1/intents', { chain: SOLANA_DEVNET, token: 'USDC', amount: '1', requestor: SOL_ADDR })).body.intent;
      const sig = '5'.repeat(87) + '1';
      expect503(await api.post(`/v1/intents/${i.id}/submit`, { txSignature: sig }), 'rpc.unavailable');
      expect((await api.get(`/v1/intents/${i.id}`)).body.intent.state).toBe('created');
    } finally {
      await node.stop(true);
    }
  });
});
