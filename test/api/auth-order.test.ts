// Authentication comes before parsing and validation: without a valid key, only 401.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, startTestServer, type TestServer } from '../support/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.stop());

it.each([
  ['malformed JSON', '{bad'],
  ['an invalid body', JSON.stringify({ amount: 12 })],
])('answers 401, not 400, to %s without a valid key', async (_name, body) => {
  for (const key of [null, 'pk_test_' + 'x'.repeat(32)]) {
    const r = await client(s.url, key).post('/v1/intents', body);
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('auth.invalid_api_key');
  }
});

it('still validates once the key is valid', async () => {
  const r = await s.api((await s.account()).key).post('/v1/intents', '{bad');
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe('request.malformed_json');
});
