// POST /v1/intents through the real server: every field's validation with its param, chain and
// token rules per mode (Tempo included), sanctions screening, idempotency (replays, races,
// scoping), body limits, malformed JSON, unknown routes, request ids.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_MAINNET, BASE_SEPOLIA, EVM_ADDR, EVM_ADDR2, intentBody, SOL_ADDR, SOLANA_DEVNET, startTestServer, TEMPO_MODERATO, type ApiClient, type TestServer } from '../support/server';
import { eventTypes, expectError } from '../support/api';

const SANCTIONED_EVM = '0x04DBA1194ee10112fE6C3207C0687DEf0e78baCf';
const SANCTIONED_SOL = '42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi';
const TEMPO_MAINNET = 'eip155:4217';
const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

let s: TestServer;
let api: ApiClient;
let apiKey: string;
let live: ApiClient;
beforeAll(async () => {
  s = await startTestServer();
  const a = await s.account();
  apiKey = a.key;
  api = s.api(a.key);
  live = s.api(await s.key(a.accountId, 'live'));
});
afterAll(async () => s.stop());

describe('create: success', () => {
  it('201 with every field present, exact amounts, defaults', async () => {
    const r = await api.post('/v1/intents', intentBody({ amount: '12.340000', reference: 'order-1', metadata: { a: 'b' } }));
    expect(r.status).toBe(201);
    const i = r.body.intent;
    expect(i.id).toMatch(/^pi_[0-9A-Za-z]{24}$/);
    expect(i).toMatchObject({
      chain: BASE_SEPOLIA, token: 'USDC', amount: '12.34', amountBaseUnits: '12340000', requestor: EVM_ADDR, direction: 'request',
      state: 'created', reference: 'order-1', livemode: false, idempotencyKey: null, tokenAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      fulfiller: null, retryRequired: false, pendingAtExpiry: false, txSignature: null, detectedAt: null, ataRentLamports: null,
      ttlSeconds: 900, confirmedAt: null, finalizedAt: null, metadata: { a: 'b' }, refundedBy: null, refundOf: null, refunds: [], failureReason: null,
    });
    expect(Object.keys(i).sort()).toEqual([
      'amount', 'amountBaseUnits', 'ataRentLamports', 'chain', 'confirmedAt', 'createdAt', 'detectedAt', 'direction', 'expiresAt',
      'failureReason', 'finalizedAt', 'fulfiller', 'id', 'idempotencyKey', 'livemode', 'metadata', 'payToken', 'payUrl', 'pendingAtExpiry', 'reference',
      'refundOf', 'refundedBy', 'refunds', 'requestor', 'retryRequired', 'state', 'ttlSeconds', 'token', 'tokenAddress', 'txSignature', 'updatedAt',
      'solanaReference', 'paymentUri', 'latePayment',
    ].sort());
    expect(i.payToken).toMatch(/^pt_[0-9A-Za-z]{32}$/);
    expect(i.payUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/pay/${i.payToken}$`));
    expect(Date.parse(i.expiresAt) - Date.parse(i.createdAt)).toBe(900_000);
    expect(i.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(await eventTypes(api, i.id)).toEqual(['intent.created']);
  });

  it('normalizes EVM addresses, accepts Solana, fulfiller, ttl bounds, 50 metadata keys', async () => {
    const evm = await api.post('/v1/intents', intentBody({ requestor: EVM_ADDR2.toUpperCase().replace('0X', '0x'), fulfiller: EVM_ADDR, ttlSeconds: 60 }));
    expect(evm.status).toBe(201);
    expect(evm.body.intent.requestor).toBe(EVM_ADDR2);
    expect(evm.body.intent.fulfiller).toBe(EVM_ADDR);
    // A correct EIP-55 checksum (mixed case) and all lower case are both the same address.
    const summed = await api.post('/v1/intents', intentBody({ requestor: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', fulfiller: '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359' }));
    expect(summed.status).toBe(201);
    expect(summed.body.intent).toMatchObject({ requestor: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', fulfiller: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' });
    expect(evm.body.intent.ttlSeconds).toBe(60);
    const sol = await api.post('/v1/intents', { chain: SOLANA_DEVNET, token: 'USDC', amount: '0.000001', requestor: SOL_ADDR, ttlSeconds: 604800 });
    expect(sol.status).toBe(201);
    expect(sol.body.intent).toMatchObject({ amountBaseUnits: '1', tokenAddress: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' });
    const meta = Object.fromEntries(Array.from({ length: 50 }, (_, n) => [`k${n}`.padEnd(40, 'x'), 'v'.repeat(500)]));
    expect((await api.post('/v1/intents', intentBody({ metadata: meta, reference: 'r'.repeat(256) }))).status).toBe(201);
  });

  it('huge amounts stay exact (bigint), past 2^63 base units', async () => {
    const r = await api.post('/v1/intents', intentBody({ amount: '123456789012345678901.5' }));
    expect(r.status).toBe(201);
    expect(r.body.intent.amountBaseUnits).toBe('123456789012345678901500000');
    expect(r.body.intent.amount).toBe('123456789012345678901.5');
    expect((await api.get(`/v1/intents/${r.body.intent.id}`)).body.intent.amountBaseUnits).toBe('123456789012345678901500000');
  });

  it('Tempo Moderato: pathUSD and AlphaUSD work, USDC does not', async () => {
    for (const token of ['pathUSD', 'AlphaUSD']) {
      const r = await api.post('/v1/intents', intentBody({ chain: TEMPO_MODERATO, token }));
      expect(r.status, token).toBe(201);
      expect(r.body.intent.tokenAddress.toLowerCase()).toMatch(/^0x20c00000000000000000000000000000000000/);
    }
    const e = expectError(await api.post('/v1/intents', intentBody({ chain: TEMPO_MODERATO, token: 'USDC' })), 422, 'token.unavailable_on_chain', 'token');
    expect(e.details.available).toEqual(expect.arrayContaining(['pathUSD', 'AlphaUSD']));
  });

  it('a live key creates on live chains with livemode true', async () => {
    const r = await live.post('/v1/intents', intentBody({ chain: BASE_MAINNET }));
    expect(r.status).toBe(201);
    expect(r.body.intent.livemode).toBe(true);
    expect((await live.post('/v1/intents', intentBody({ chain: TEMPO_MAINNET, token: 'USDT0' }))).status).toBe(201);
  });
});

describe('create: 400 request.invalid_param names the field', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['chain missing', { chain: undefined }, 'chain'],
    ['chain not CAIP-2', { chain: 'base' }, 'chain'],
    ['chain not a string', { chain: 8453 }, 'chain'],
    ['token missing', { token: undefined }, 'token'],
    ['token empty', { token: '' }, 'token'],
    ['amount missing', { amount: undefined }, 'amount'],
    ['amount as number', { amount: 12.34 }, 'amount'],
    ['amount format', { amount: '12,34' }, 'amount'],
    ['amount exponent', { amount: '1e3' }, 'amount'],
    ['amount negative', { amount: '-1' }, 'amount'],
    ['amount too many decimals', { amount: '1.0000001' }, 'amount'],
    ['amount zero', { amount: '0' }, 'amount'],
    ['amount zero with decimals', { amount: '0.000000' }, 'amount'],
    ['requestor missing', { requestor: undefined }, 'requestor'],
    ['requestor bad EVM', { requestor: '0x1234' }, 'requestor'],
    ['requestor Solana on EVM', { requestor: SOL_ADDR }, 'requestor'],
    ['fulfiller bad', { fulfiller: '0xzz11111111111111111111111111111111111111' }, 'fulfiller'],
    ['reference too long', { reference: 'r'.repeat(257) }, 'reference'],
    ['ttlSeconds below', { ttlSeconds: 59 }, 'ttlSeconds'],
    ['ttlSeconds above', { ttlSeconds: 604801 }, 'ttlSeconds'],
    ['ttlSeconds not integer', { ttlSeconds: 60.5 }, 'ttlSeconds'],
    ['metadata > 50 keys', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, n) => [`k${n}`, 'v'])) }, 'metadata'],
    ['metadata key > 40', { metadata: { ['k'.repeat(41)]: 'v' } }, `metadata.${'k'.repeat(41)}`],
    ['metadata value > 500', { metadata: { k: 'v'.repeat(501) } }, 'metadata.k'],
    ['metadata value not a string', { metadata: { k: 1 } }, 'metadata.k'],
    ['direction', { direction: 'send' }, 'direction'],
    // Addresses money sent to is lost or refused: the zero address, the token contract itself.
    ['requestor the zero address', { requestor: `0x${'0'.repeat(40)}` }, 'requestor'],
    ['requestor the token contract', { requestor: '0x036cbd53842c5426634e7929541ec2318f3dcf7e' }, 'requestor'],
    ['fulfiller the zero address', { fulfiller: `0x${'0'.repeat(40)}` }, 'fulfiller'],
    // Mixed case is an EIP-55 checksum, there to catch a typo: a wrong one is refused, never
    // re-checksummed into an address nobody holds (a valid one and one case are accepted above).
    ['requestor with a wrong EIP-55 checksum', { requestor: '0xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAa' }, 'requestor'],
    ['fulfiller with a wrong EIP-55 checksum', { fulfiller: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' }, 'fulfiller'],
  ];
  for (const [name, over, param] of cases) {
    it(`${name} -> param ${param}`, async () => {
      expectError(await api.post('/v1/intents', intentBody(over)), 400, 'request.invalid_param', param);
    });
  }

  it('Solana requestor and fulfiller are validated for the Solana family', async () => {
    const base = { chain: SOLANA_DEVNET, token: 'USDC', amount: '1', requestor: SOL_ADDR };
    expectError(await api.post('/v1/intents', { ...base, requestor: EVM_ADDR }), 400, 'request.invalid_param', 'requestor');
    expectError(await api.post('/v1/intents', { ...base, requestor: 'not-base58-0OIl' }), 400, 'request.invalid_param', 'requestor');
    expectError(await api.post('/v1/intents', { ...base, fulfiller: EVM_ADDR }), 400, 'request.invalid_param', 'fulfiller');
    expectError(await api.post('/v1/intents', { ...base, amount: '0.0000001' }), 400, 'request.invalid_param', 'amount');
    // The token's mint as the requestor (its token account would belong to the mint).
    expectError(await api.post('/v1/intents', { ...base, requestor: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' }), 400, 'request.invalid_param', 'requestor');
  });

  it('Idempotency-Key header and body idempotencyKey that differ', async () => {
    expectError(await api.post('/v1/intents', intentBody({ idempotencyKey: 'a' }), { 'idempotency-key': 'b' }), 400, 'request.invalid_param', 'idempotencyKey');
    // The same value in both is fine.
    const ok = await api.post('/v1/intents', intentBody({ idempotencyKey: 'same-both' }), { 'idempotency-key': 'same-both' });
    expect(ok.status).toBe(201);
    expect(ok.body.intent.idempotencyKey).toBe('same-both');
  });

  it('Idempotency-Key longer than 255', async () => {
    expectError(await api.post('/v1/intents', intentBody(), { 'idempotency-key': 'k'.repeat(256) }), 400, 'request.invalid_param', 'Idempotency-Key');
  });

  it('nothing is written by a refused create', async () => {
    const before = (await api.get('/v1/intents?limit=100')).body.intents.length;
    await api.post('/v1/intents', intentBody({ amount: '0' }));
    expect((await api.get('/v1/intents?limit=100')).body.intents.length).toBe(before);
  });
});

describe('create: 422', () => {
  it('chain.unavailable_in_mode both directions', async () => {
    let e = expectError(await api.post('/v1/intents', intentBody({ chain: BASE_MAINNET })), 422, 'chain.unavailable_in_mode', 'chain');
    expect(e.details).toMatchObject({ chain: BASE_MAINNET, mode: 'test' });
    expectError(await api.post('/v1/intents', intentBody({ chain: SOLANA_MAINNET, requestor: SOL_ADDR })), 422, 'chain.unavailable_in_mode', 'chain');
    e = expectError(await live.post('/v1/intents', intentBody({ chain: BASE_SEPOLIA })), 422, 'chain.unavailable_in_mode', 'chain');
    expect(e.details).toMatchObject({ chain: BASE_SEPOLIA, mode: 'live' });
    expectError(await live.post('/v1/intents', intentBody({ chain: TEMPO_MODERATO, token: 'pathUSD' })), 422, 'chain.unavailable_in_mode', 'chain');
  });

  it('chain.unsupported', async () => {
    expectError(await api.post('/v1/intents', intentBody({ chain: 'eip155:1' })), 422, 'chain.unsupported', 'chain');
  });

  it('token.unavailable_on_chain', async () => {
    expectError(await api.post('/v1/intents', intentBody({ token: 'DOGE' })), 422, 'token.unavailable_on_chain', 'token');
    expectError(await live.post('/v1/intents', intentBody({ chain: BASE_MAINNET, token: 'pathUSD' })), 422, 'token.unavailable_on_chain', 'token');
  });

  it('address.sanctions_match for requestor and fulfiller, EVM case-insensitive and Solana exact', async () => {
    let e = expectError(await api.post('/v1/intents', intentBody({ requestor: SANCTIONED_EVM })), 422, 'address.sanctions_match', 'requestor');
    expect(String(e.details.address).toLowerCase()).toBe(SANCTIONED_EVM.toLowerCase());
    expectError(await api.post('/v1/intents', intentBody({ requestor: SANCTIONED_EVM.toLowerCase() })), 422, 'address.sanctions_match', 'requestor');
    e = expectError(await api.post('/v1/intents', intentBody({ fulfiller: SANCTIONED_EVM })), 422, 'address.sanctions_match', 'fulfiller');
    const sol = { chain: SOLANA_DEVNET, token: 'USDC', amount: '1', requestor: SOL_ADDR };
    expectError(await api.post('/v1/intents', { ...sol, requestor: SANCTIONED_SOL }), 422, 'address.sanctions_match', 'requestor');
    expectError(await api.post('/v1/intents', { ...sol, fulfiller: SANCTIONED_SOL }), 422, 'address.sanctions_match', 'fulfiller');
  });
});

describe('idempotency', () => {
  it('same key and body replays the first response: 201, Idempotent-Replayed, same id, no second event', async () => {
    const body = intentBody({ reference: 'idem-1', metadata: { a: '1', b: '2' } });
    const first = await api.post('/v1/intents', body, { 'idempotency-key': 'idem-key-1' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Same body in another key order is the same request.
    const again = await api.post('/v1/intents', { metadata: { b: '2', a: '1' }, ...body }, { 'idempotency-key': 'idem-key-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(first.body.intent.idempotencyKey).toBe('idem-key-1');
    // The body field works as the key too.
    const viaBody = await api.post('/v1/intents', { ...body, idempotencyKey: 'idem-key-1' });
    expect(viaBody.body.intent.id).toBe(first.body.intent.id);
    expect(await eventTypes(api, first.body.intent.id)).toEqual(['intent.created']);
    const listed = (await api.get('/v1/intents?reference=idem-1')).body.intents;
    expect(listed).toHaveLength(1);
  });

  it('same key with another body -> 422 idempotency.key_reused', async () => {
    await api.post('/v1/intents', intentBody(), { 'idempotency-key': 'idem-key-2' });
    expectError(await api.post('/v1/intents', intentBody({ amount: '99' }), { 'idempotency-key': 'idem-key-2' }), 422, 'idempotency.key_reused');
  });

  it('two concurrent requests with one key -> exactly one intent and one event', async () => {
    for (let round = 0; round < 5; round++) {
      const key = `race-${round}`;
      const body = intentBody({ reference: key });
      const rs = await Promise.all(Array.from({ length: 4 }, () => api.post('/v1/intents', body, { 'idempotency-key': key })));
      for (const r of rs) {
        if (r.status === 409) expectError(r, 409, 'idempotency.in_progress');
        else expect(r.status).toBe(201);
      }
      const created = rs.filter((r) => r.status === 201);
      expect(created.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
      expect(new Set(created.map((r) => r.body.intent.id)).size).toBe(1);
      const listed = (await api.get(`/v1/intents?reference=${key}`)).body.intents;
      expect(listed).toHaveLength(1);
      expect(await eventTypes(api, listed[0].id)).toEqual(['intent.created']);
    }
  });

  it('keys are scoped per account and per mode', async () => {
    const other = s.api((await s.account()).key);
    const a = await api.post('/v1/intents', intentBody(), { 'idempotency-key': 'scoped' });
    const b = await other.post('/v1/intents', intentBody(), { 'idempotency-key': 'scoped' });
    const c = await live.post('/v1/intents', intentBody({ chain: BASE_MAINNET }), { 'idempotency-key': 'scoped' });
    for (const r of [a, b, c]) {
      expect(r.status).toBe(201);
      expect(r.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(new Set([a.body.intent.id, b.body.intent.id, c.body.intent.id]).size).toBe(3);
  });

  it('a failed create does not burn the key', async () => {
    expectError(await api.post('/v1/intents', intentBody({ amount: '0' }), { 'idempotency-key': 'retry-after-fix' }), 400, 'request.invalid_param', 'amount');
    const ok = await api.post('/v1/intents', intentBody(), { 'idempotency-key': 'retry-after-fix' });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('request-level errors', () => {
  it('400 request.malformed_json', async () => {
    expectError(await api.post('/v1/intents', '{"chain": '), 400, 'request.malformed_json', null);
    expectError(await api.patch('/v1/intents/pi_x', 'nope'), 400, 'request.malformed_json', null);
  });

  it('413 request.too_large for bodies over 1 MiB', async () => {
    const big = intentBody({ reference: 'x'.repeat(1024 * 1024 + 10) });
    expectError(await api.post('/v1/intents', big), 413, 'request.too_large');
    // Chunked, with no Content-Length to check up front.
    const chunk = new TextEncoder().encode('x'.repeat(400_000));
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"reference":"'));
        for (let n = 0; n < 3; n++) c.enqueue(chunk);
        c.enqueue(new TextEncoder().encode('"}'));
        c.close();
      },
    });
    const res = await fetch(`${s.url}/v1/intents`, {
      method: 'POST', body: stream, duplex: 'half', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    } as RequestInit);
    const text = await res.text();
    expectError({ status: res.status, headers: res.headers, body: JSON.parse(text) }, 413, 'request.too_large');
  });

  it('404 route.not_found for an unknown path', async () => {
    expectError(await api.get('/v1/nope'), 404, 'route.not_found');
  });

  it('/openapi.json describes the routes with their request enums; /healthz and /docs answer', async () => {
    const doc = await api.get('/openapi.json');
    expect(doc.status).toBe(200);
    const sim = doc.body.paths['/v1/test/intents/{id}/simulate'].post;
    expect(sim.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/SimulateRequest' });
    expect(JSON.stringify(doc.body.components.schemas.SimulateRequest)).toContain('finalized');
    expect(doc.body.paths['/v1/intents'].get.parameters.map((p: any) => p.name).sort()).toEqual(['limit', 'reference', 'starting_after', 'state']);
    expect((await api.get('/healthz')).status).toBe(200);
    expect((await api.get('/docs')).status).toBe(200);
  });

  it('X-Request-Id on every response, echoed when the client sends one', async () => {
    for (const r of [await api.get('/healthz'), await api.get('/v1/intents'), await api.get('/v1/nope')]) {
      expect(r.headers.get('x-request-id')).toMatch(/^[\w.-]+$/);
    }
    const r = await api.req('GET', '/v1/intents', undefined, { 'x-request-id': 'my-req-123' });
    expect(r.headers.get('x-request-id')).toBe('my-req-123');
  });
});
