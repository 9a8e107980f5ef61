// The Authorization header as HTTP defines it (RFC 9110 section 11): the scheme is
// case-insensitive, and every 401 says which scheme to use in WWW-Authenticate.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

let s: TestServer;
let key: string;
beforeAll(async () => {
  s = await startTestServer();
  key = (await s.account()).key;
});
afterAll(async () => s.stop());

const get = (authorization?: string) => fetch(`${s.url}/v1/intents`, { headers: authorization === undefined ? {} : { authorization } });

it('takes the Bearer scheme in any case', async () => {
  for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
    const r = await get(`${scheme} ${key}`);
    expect({ scheme, status: r.status }).toEqual({ scheme, status: 200 });
  }
});

it('names the scheme in WWW-Authenticate on every 401', async () => {
  for (const header of [undefined, 'Basic abc', `Bearer pk_test_${'x'.repeat(32)}`, 'Bearer pk_test_short', `Token ${key}`]) {
    const r = await get(header);
    expect(r.status).toBe(401);
    expect((await r.json()).error.code).toBe('auth.invalid_api_key');
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="PayForge"');
  }
  // A valid key answers without the challenge.
  expect((await get(`Bearer ${key}`)).headers.get('www-authenticate')).toBeNull();
});
