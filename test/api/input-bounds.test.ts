// Issue 13 items 2-3 through the real server: amounts bounded by the token's on-chain width at
// create, every string bounded before it is parsed, JSON nesting bounded before validation (400,
// never 500), a rate token for every authenticated request valid or not, and no body read before
// a 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/api';
import { type ApiClient, client, EVM_ADDR, intentBody, SOL_ADDR, SOLANA_DEVNET, startServerWithKey, startTestServer, type TestServer } from '../support/server';

let s: TestServer;
let api: ApiClient;
beforeAll(async () => {
  ({ s, api } = await startServerWithKey());
});
afterAll(async () => s.stop());

/** "N base units" of a 6-decimals token as a decimal string. */
const units6 = (n: bigint): string => {
  const t = n.toString().padStart(7, '0');
  return `${t.slice(0, -6)}.${t.slice(-6)}`;
};

describe('amounts within the chain integer width', () => {
  it('EVM: 2^256-1 base units is accepted, 2^256 is 400 amount', async () => {
    const max = 2n ** 256n - 1n;
    const ok = await api.post('/v1/intents', intentBody({ amount: units6(max) }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.intent.amountBaseUnits).toBe(max.toString());
    const e = expectError(await api.post('/v1/intents', intentBody({ amount: units6(max + 1n) })), 400, 'request.invalid_param', 'amount');
    expect(e.details.max).toBe(units6(max));
  });

  it('Solana: 2^64-1 base units is accepted, 2^64 is 400 amount', async () => {
    const body = (amount: string) => ({ chain: SOLANA_DEVNET, token: 'USDC', amount, requestor: SOL_ADDR });
    const max = 2n ** 64n - 1n;
    const ok = await api.post('/v1/intents', body(units6(max)));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.intent.amountBaseUnits).toBe(max.toString());
    expectError(await api.post('/v1/intents', body(units6(max + 1n))), 400, 'request.invalid_param', 'amount');
    expectError(await api.post('/v1/intents', body('18446744073709551616')), 400, 'request.invalid_param', 'amount');
  });

  it('a million-digit amount is refused as too long, naming amount', async () => {
    const e = expectError(await api.post('/v1/intents', intentBody({ amount: '9'.repeat(1_000_000) })), 400, 'request.invalid_param', 'amount');
    expect(e.message).toMatch(/length|characters/);
    expectError(await api.post('/v1/intents', intentBody({ amount: `1.${'0'.repeat(500_000)}` })), 400, 'request.invalid_param', 'amount');
  });

  it('every string field is bounded, each naming its param', async () => {
    const long = 'x'.repeat(100_000);
    for (const param of ['chain', 'token', 'requestor', 'fulfiller', 'reference', 'idempotencyKey']) {
      expectError(await api.post('/v1/intents', intentBody({ [param]: long })), 400, 'request.invalid_param', param);
    }
    expectError(await api.post('/v1/intents', intentBody({ metadata: { k: long } })), 400, 'request.invalid_param', 'metadata.k');
    const created = (await api.post('/v1/intents', intentBody())).body.intent;
    expectError(await api.patch(`/v1/intents/${created.id}`, { updatedAt: long }), 400, 'request.invalid_param', 'updatedAt');
    expectError(await api.post(`/v1/intents/${created.id}/submit`, { signedTransaction: 'A'.repeat(300_000) }), 400, 'request.invalid_param', 'signedTransaction');
    expectError(await api.get(`/v1/intents?reference=${long.slice(0, 300)}`), 400, 'request.invalid_param', 'reference');
  });
});

describe('nesting depth', () => {
  const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

  it.each([
    ['metadata nested 5,000 deep', `{"chain":"eip155:84532","token":"USDC","amount":"1","requestor":"${EVM_ADDR}","metadata":${deepObject(5000)}}`],
    ['an object nested 100,000 deep', deepObject(100_000)],
    ['an array nested 100,000 deep', deepArray(100_000)],
    ['a value 20 levels deep', `{"metadata":${deepObject(20)}}`],
  ])('%s: 400 with a clear message, never 500', async (_name, body) => {
    const e = expectError(await api.post('/v1/intents', body), 400, 'request.invalid_param');
    expect(e.message).toMatch(/nests deeper than 16 levels/);
  });

  it('deep bodies are refused on every validated route', async () => {
    const created = (await api.post('/v1/intents', intentBody())).body.intent;
    const body = `{"x":${deepObject(3000)}}`;
    for (const path of [`/v1/intents/${created.id}/build`, `/v1/intents/${created.id}/submit`, `/v1/test/intents/${created.id}/simulate`, `/v1/intents/${created.id}/cancel`]) {
      expectError(await api.post(path, body), 400, 'request.invalid_param');
    }
    const patch = await api.req('PATCH', `/v1/intents/${created.id}`, body, { 'content-type': 'application/json' });
    expectError(patch, 400, 'request.invalid_param');
  });
});

describe('rate limit and authentication come before the body', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ rateLimit: { perSecond: 0.001, burst: 3 } });
  });
  afterAll(async () => limited.stop());

  it('invalid requests take a rate token like valid ones', async () => {
    const a = limited.api((await limited.account()).key);
    expectError(await a.post('/v1/intents', '{bad'), 400, 'request.malformed_json');
    expectError(await a.post('/v1/intents', `{"x":${'['.repeat(5000)}${']'.repeat(5000)}}`), 400, 'request.invalid_param');
    expectError(await a.post('/v1/intents', { amount: 5 }), 400, 'request.invalid_param', 'chain');
    const e = expectError(await a.get('/v1/intents'), 429, 'rate_limit.exceeded');
    expect(Number(e.details.retry_after)).toBeGreaterThan(0);
    // Another key of the same account has its own bucket.
    expect((await limited.api((await limited.account()).key).get('/v1/intents')).status).toBe(200);
  });

  it('a body that never ends gets its 401 at once: nothing is read before authentication', async () => {
    const endless = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"chain":'));
      },
    });
    const ctl = new AbortController();
    const res = await Promise.race([
      fetch(`${limited.url}/v1/intents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer pk_test_${'x'.repeat(32)}` },
        body: endless,
        duplex: 'half',
        signal: ctl.signal,
      } as RequestInit),
      new Promise<null>((r) => setTimeout(() => r(null), 15_000)),
    ]);
    const body = res ? ((await res.json()) as any) : null;
    ctl.abort();
    expect(res, 'no answer while the body was still open: the server waited for the body before its 401').not.toBeNull();
    expect(res!.status).toBe(401);
    expect(body.error.code).toBe('auth.invalid_api_key');
  });

  it('no key: 401 before a deep, huge or form body is looked at', async () => {
    const anon = client(limited.url, null);
    expectError(await anon.post('/v1/intents', `${'['.repeat(50_000)}${']'.repeat(50_000)}`), 401, 'auth.invalid_api_key');
    expectError(await anon.req('POST', '/v1/intents', 'a=1', { 'content-type': 'application/x-www-form-urlencoded' }), 401, 'auth.invalid_api_key');
  });
});
