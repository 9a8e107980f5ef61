// Issue 13 item 4 through the real server: exact shapes. Unknown fields are a 400 naming them
// (never silently dropped), no type is coerced, nothing is smuggled through "__proto__" or
// "constructor", and a JSON API takes JSON only (415 for forms and multipart).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/api';
import { type ApiClient, intentBody, startServerWithKey, type TestServer } from '../support/server';

let s: TestServer;
let api: ApiClient;
let key: string;
beforeAll(async () => {
  ({ s, key, api } = await startServerWithKey());
});
afterAll(async () => s.stop());

const count = async (): Promise<number> => (await api.get('/v1/intents?limit=100')).body.intents.length;
const fresh = async () => (await api.post('/v1/intents', intentBody())).body.intent;

describe('unknown fields', () => {
  it('create: 400 naming the field, nothing written', async () => {
    const before = await count();
    expectError(await api.post('/v1/intents', intentBody({ amountt: '5' })), 400, 'request.invalid_param', 'amountt');
    expectError(await api.post('/v1/intents', intentBody({ state: 'confirmed' })), 400, 'request.invalid_param', 'state');
    expect(await count()).toBe(before);
  });

  it('PATCH of amount or state: 400 naming it, the intent and its updatedAt unchanged', async () => {
    const i = await fresh();
    for (const [param, value] of [['amount', '99'], ['state', 'confirmed'], ['token', 'X'], ['txSignature', '0x1']] as const) {
      expectError(await api.patch(`/v1/intents/${i.id}`, { updatedAt: i.updatedAt, [param]: value }), 400, 'request.invalid_param', param);
    }
    expect((await api.get(`/v1/intents/${i.id}`)).body.intent).toEqual(i);
  });

  it('build, submit, simulate and the bodiless operations name the stray field', async () => {
    const i = await fresh();
    expectError(await api.post(`/v1/intents/${i.id}/build`, { fulfiller: null, extra: 1 }), 400, 'request.invalid_param');
    expectError(await api.post(`/v1/intents/${i.id}/build`, { extra: 1 }), 400, 'request.invalid_param', 'extra');
    expectError(await api.post(`/v1/intents/${i.id}/submit`, { signedTransaction: 'AA==', extra: 1 }), 400, 'request.invalid_param', 'extra');
    expectError(await api.post(`/v1/test/intents/${i.id}/simulate`, { targetState: 'confirmed', extra: 1 }), 400, 'request.invalid_param', 'extra');
    for (const op of ['cancel', 'detected', 'refund']) {
      expectError(await api.post(`/v1/intents/${i.id}/${op}`, { reason: 'x' }), 400, 'request.invalid_param', 'reason');
    }
    expect((await api.get(`/v1/intents/${i.id}`)).body.intent.state).toBe('created');
    // An empty body or {} is still fine.
    expect((await api.post(`/v1/intents/${i.id}/detected`, {})).status).toBe(200);
    expect((await api.post(`/v1/intents/${i.id}/cancel`)).status).toBe(200);
  });

  it('unknown query parameters are named too', async () => {
    expectError(await api.get('/v1/intents?limt=5'), 400, 'request.invalid_param', 'limt');
    expectError(await api.get('/v1/webhooks?x=1'), 400, 'request.invalid_param', 'x');
  });
});

describe('no coercion', () => {
  it.each([
    ['metadata as a string', { metadata: 'abc' }, 'metadata'],
    ['metadata as an array', { metadata: ['a'] }, 'metadata'],
    ['metadata value as a number', { metadata: { a: 1 } }, 'metadata.a'],
    ['ttlSeconds as a string', { ttlSeconds: '120' }, 'ttlSeconds'],
    ['ttlSeconds as a float', { ttlSeconds: 120.5 }, 'ttlSeconds'],
    ['amount as a number', { amount: 12.34 }, 'amount'],
    ['reference as a number', { reference: 7 }, 'reference'],
    ['direction as another word', { direction: 'send' }, 'direction'],
  ])('%s: 400 naming it', async (_name, over, param) => {
    expectError(await api.post('/v1/intents', intentBody(over)), 400, 'request.invalid_param', param);
  });

  it('a body that is not a JSON object: 400, nothing created', async () => {
    const before = await count();
    for (const body of [JSON.stringify([intentBody()]), '"text"', '42', 'null', 'true']) {
      const e = expectError(await api.post('/v1/intents', body), 400, 'request.invalid_param');
      expect(e.message).toMatch(/JSON object/);
    }
    expect(await count()).toBe(before);
  });
});

describe('prototype smuggling', () => {
  it('a top-level __proto__ carrying a field: 400, nothing created', async () => {
    const before = await count();
    const raw = `{"chain":"eip155:84532","token":"USDC","requestor":"0x1111111111111111111111111111111111111111","__proto__":{"amount":"5"}}`;
    expectError(await api.post('/v1/intents', raw), 400, 'request.invalid_param', '__proto__');
    const withAll = JSON.stringify(intentBody()).replace(/}$/, ',"__proto__":{"ttlSeconds":60}}');
    expectError(await api.post('/v1/intents', withAll), 400, 'request.invalid_param', '__proto__');
    expect(await count()).toBe(before);
  });

  it('constructor and prototype at the top: 400 naming them', async () => {
    for (const k of ['constructor', 'prototype', 'toString', 'hasOwnProperty']) {
      const raw = JSON.stringify(intentBody()).replace(/}$/, `,"${k}":{"prototype":{"amount":"5"}}}`);
      expectError(await api.post('/v1/intents', raw), 400, 'request.invalid_param', k);
    }
  });

  it('__proto__ nested in metadata or a PATCH: 400 with its path', async () => {
    const raw = JSON.stringify(intentBody()).replace(/}$/, ',"metadata":{"__proto__":{"x":"y"}}}');
    expectError(await api.post('/v1/intents', raw), 400, 'request.invalid_param', 'metadata.__proto__');
    const i = await fresh();
    const patch = await api.req('PATCH', `/v1/intents/${i.id}`, `{"updatedAt":"${i.updatedAt}","__proto__":{"reference":"x"}}`, { 'content-type': 'application/json' });
    expectError(patch, 400, 'request.invalid_param', '__proto__');
  });
});

describe('JSON only', () => {
  const raw = (body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(`${s.url}/v1/intents`, { method: 'POST', headers: { authorization: `Bearer ${key}`, ...headers }, body }).then(async (r) => ({
      status: r.status,
      headers: r.headers,
      body: (await r.json()) as any,
    }));

  it('form-encoded and multipart bodies: 415 request.unsupported_media_type, nothing created', async () => {
    const before = await count();
    const form = new URLSearchParams(intentBody() as Record<string, string>);
    expectError(await raw(form), 415, 'request.unsupported_media_type');
    const fd = new FormData();
    for (const [k, v] of Object.entries(intentBody())) fd.append(k, String(v));
    const e = expectError(await raw(fd), 415, 'request.unsupported_media_type');
    expect(e.details.content_type).toBe('multipart/form-data');
    expectError(await raw(JSON.stringify(intentBody()), { 'content-type': 'text/plain' }), 415, 'request.unsupported_media_type');
    expect(await count()).toBe(before);
  });

  it('application/json with a charset, and +json types, are JSON', async () => {
    expect((await raw(JSON.stringify(intentBody()), { 'content-type': 'application/json; charset=utf-8' })).status).toBe(201);
    expect((await raw(JSON.stringify(intentBody()), { 'content-type': 'application/merge-patch+json' })).status).toBe(201);
  });
});

describe('U+0000 in stored text', () => {
  // PostgreSQL text cannot hold it: both engines refuse it the same way, never a 500 on one.
  it('reference (create and PATCH) and a body idempotencyKey: 400 naming the field, nothing written', async () => {
    const before = (await api.get('/v1/intents?limit=100')).body.intents.length;
    expectError(await api.post('/v1/intents', intentBody({ reference: 'order\u00001' })), 400, 'request.invalid_param', 'reference');
    expectError(await api.post('/v1/intents', intentBody({ idempotencyKey: 'k\u0000' })), 400, 'request.invalid_param', 'idempotencyKey');
    expect((await api.get('/v1/intents?limit=100')).body.intents.length).toBe(before);
    const i = await fresh();
    expectError(await api.patch(`/v1/intents/${i.id}`, { updatedAt: i.updatedAt, reference: '\u0000' }), 400, 'request.invalid_param', 'reference');
    expect((await api.get(`/v1/intents/${i.id}`)).body.intent.updatedAt).toBe(i.updatedAt);
  });
});
