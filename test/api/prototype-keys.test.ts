// Issue 8, the class "a property lookup on a plain object keyed by user input": names of
// Object.prototype members used as tokens, chains, metadata keys, query values and config keys
// are ordinary unknown (or ordinary) names: a precise 4xx or a plain value, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/api';
import { type ApiClient, intentBody, SOL_ADDR, SOLANA_DEVNET, startServerWithKey, startTestServer, type TestServer } from '../support/server';

const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'];

let s: TestServer;
let api: ApiClient;
beforeAll(async () => {
  ({ s, api } = await startServerWithKey());
});
afterAll(async () => s.stop());

describe('Object.prototype names as user input', () => {
  it.each(NAMES)('token %s on EVM and Solana: 422 token.unavailable_on_chain', async (name) => {
    const e = expectError(await api.post('/v1/intents', intentBody({ token: name })), 422, 'token.unavailable_on_chain', 'token');
    expect(e.details.available).toEqual(['USDC']);
    expectError(await api.post('/v1/intents', { chain: SOLANA_DEVNET, token: name, amount: '1', requestor: SOL_ADDR }), 422, 'token.unavailable_on_chain', 'token');
  });

  it.each(NAMES)('chain %s: 400 chain (not CAIP-2), and as eip155:<name> 422 chain.unsupported', async (name) => {
    expectError(await api.post('/v1/intents', intentBody({ chain: name })), 400, 'request.invalid_param', 'chain');
    if (/^[-_a-zA-Z0-9]{1,32}$/.test(name)) {
      expectError(await api.post('/v1/intents', intentBody({ chain: `eip155:${name}` })), 422, 'chain.unsupported', 'chain');
    }
  });

  it('metadata keys named after prototype members are kept as plain keys', async () => {
    const metadata = { constructor: 'a', toString: 'b', hasOwnProperty: 'c', valueOf: 'd' };
    const r = await api.post('/v1/intents', intentBody({ metadata }));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.intent.metadata).toEqual(metadata);
    const got = (await api.get(`/v1/intents/${r.body.intent.id}`)).body.intent;
    expect(got.metadata).toEqual(metadata);
    const p = await api.patch(`/v1/intents/${got.id}`, { updatedAt: got.updatedAt, metadata: { constructor: 'z' } });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(p.body.intent.metadata).toEqual({ constructor: 'z' });
  });

  it.each(NAMES)('query value %s: 400 as a state, a plain value as reference or cursor', async (name) => {
    expectError(await api.get(`/v1/intents?state=${name}`), 400, 'request.invalid_param', 'state');
    const byRef = await api.get(`/v1/intents?reference=${name}`);
    expect(byRef.status).toBe(200);
    expect(byRef.body.intents).toEqual([]);
    expectError(await api.get(`/v1/intents?starting_after=${name}`), 400, 'request.invalid_param', 'starting_after');
    expectError(await api.get(`/v1/events?starting_after=${name}`), 400, 'request.invalid_param', 'starting_after');
    expectError(await api.get(`/v1/intents/${name}`), 404, 'intent.not_found');
  });

  it('config: a token named constructor is an ordinary configured symbol', async () => {
    const networks = JSON.parse('{"eip155:84532":{"tokens":{"constructor":{"address":"0x2222222222222222222222222222222222222222","decimals":2}}}}');
    const t = await startTestServer({ networks });
    try {
      const a = t.api((await t.account()).key);
      const r = await a.post('/v1/intents', intentBody({ token: 'constructor', amount: '1.5' }));
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.intent).toMatchObject({ token: 'constructor', amountBaseUnits: '150' });
      expectError(await a.post('/v1/intents', intentBody({ token: 'toString' })), 422, 'token.unavailable_on_chain', 'token');
    } finally {
      await t.stop();
    }
  });
});
