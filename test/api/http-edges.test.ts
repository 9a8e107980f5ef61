// Issue 13 items 5 and 7 at the HTTP layer: 405 with Allow on known paths, empty query values as
// absent, and the envelope on the size refusals the runtime lets us answer (README Decisions
// lists what Bun answers itself).
import { connect } from 'node:net';
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

describe('405 route.method_not_allowed', () => {
  it('a known path with an unrouted method: 405, Allow, the envelope', async () => {
    const id = (await api.post('/v1/intents', intentBody())).body.intent.id;
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/v1/intents', 'GET, HEAD, POST'],
      ['PUT', `/v1/intents/${id}`, 'GET, HEAD, PATCH'],
      ['DELETE', `/v1/intents/${id}`, 'GET, HEAD, PATCH'],
      ['GET', `/v1/intents/${id}/cancel`, 'POST'],
      ['PATCH', `/v1/test/intents/${id}/simulate`, 'POST'],
      ['POST', '/v1/webhooks', 'GET, HEAD'],
      ['POST', '/healthz', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const r = await api.req(method, path);
      const e = expectError(r, 405, 'route.method_not_allowed');
      expect(r.headers.get('allow'), `${method} ${path}`).toBe(allow);
      expect(e.details.allow).toEqual(allow.split(', '));
    }
  });

  it('an unknown path stays 404 route.not_found', async () => {
    expectError(await api.req('DELETE', '/v1/nothing-here'), 404, 'route.not_found');
    expectError(await api.get('/v1/intents/pi_x/nope'), 404, 'route.not_found');
  });
});

describe('empty query values are absent', () => {
  it('limit= and starting_after= on every list', async () => {
    await api.post('/v1/intents', intentBody());
    for (const path of ['/v1/intents?limit=&starting_after=', '/v1/intents?limit=', '/v1/intents?starting_after=&state=&reference=', '/v1/webhooks?limit=', '/v1/events?limit=&starting_after=']) {
      const r = await api.get(path);
      expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
    }
    const all = (await api.get('/v1/intents?limit=&state=')).body.intents;
    expect(all.length).toBeGreaterThan(0);
    expect(all).toEqual((await api.get('/v1/intents')).body.intents);
  });

  it('non-empty bad values are still 400 naming the parameter', async () => {
    expectError(await api.get('/v1/intents?limit=0'), 400, 'request.invalid_param', 'limit');
    expectError(await api.get('/v1/webhooks?limit=abc'), 400, 'request.invalid_param', 'limit');
    expectError(await api.get('/v1/intents?starting_after=pi_nope'), 400, 'request.invalid_param', 'starting_after');
  });

  it('a parameter given twice is 400 naming it (not the last one silently winning)', async () => {
    const i = (await api.post('/v1/intents', intentBody())).body.intent;
    const cases: Array<[string, string]> = [
      ['/v1/intents?limit=1&limit=2', 'limit'],
      ['/v1/intents?limit=1&limit=1', 'limit'],
      ['/v1/intents?state=created&limit=5&state=expired', 'state'],
      [`/v1/intents?starting_after=${i.id}&starting_after=${i.id}`, 'starting_after'],
      ['/v1/intents?reference=a&reference=b', 'reference'],
      ['/v1/webhooks?limit=1&limit=2', 'limit'],
      ['/v1/events?limit=2&%6Cimit=1', 'limit'],
      ['/v1/payments?status=late&status=matched', 'status'],
    ];
    for (const [path, param] of cases) expectError(await api.get(path), 400, 'request.invalid_param', param);
    // Once each is fine, and so is an empty one beside nothing else.
    expect((await api.get('/v1/intents?limit=1&state=created')).status).toBe(200);
  });
});

/** One raw HTTP/1.1 exchange on a fresh connection (bytes exactly as given); the whole answer. */
function rawExchange(bytes: Buffer | string): Promise<string> {
  const url = new URL(s.url);
  return new Promise<string>((resolve, reject) => {
    const sock = connect(Number(url.port), url.hostname, () => sock.write(bytes));
    let text = '';
    sock.on('data', (d) => (text += d.toString('latin1')));
    sock.on('error', reject);
    sock.on('close', () => resolve(text));
  });
}
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('header bytes the app does see', () => {
  it('a one-letter Host routes by the real path (Elysia assumes longer hosts)', async () => {
    const get = (path: string) => rawExchange(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    const ok = await get('/v1/intents');
    expect(ok).toMatch(/^HTTP\/1\.1 200/);
    expect(bodyOf(ok)).toHaveProperty('intents');
    const shifted = await get('/ab/v1/intents');
    expect(shifted).toMatch(/^HTTP\/1\.1 404/);
    expect(bodyOf(shifted).error.code).toBe('route.not_found');
    const body = JSON.stringify(intentBody());
    const created = await rawExchange(
      `POST /v1/intents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(created).toMatch(/^HTTP\/1\.1 201/);
  });

  it('UTF-8 bytes in header values: the envelope, never a 5xx', async () => {
    const auth = await rawExchange(Buffer.concat([Buffer.from('GET /v1/intents HTTP/1.1\r\nHost: localhost\r\n'), Buffer.from(`Authorization: Bearer ${key}\u2603\r\nConnection: close\r\n\r\n`, 'utf8')]));
    expect(auth).toMatch(/^HTTP\/1\.1 401/);
    expect(bodyOf(auth).error.code).toBe('auth.invalid_api_key');
    const body = JSON.stringify(intentBody());
    const idem = await rawExchange(
      Buffer.concat([
        Buffer.from(`POST /v1/intents HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n`),
        Buffer.from('Idempotency-Key: caf\u00e9 \u2603\r\nX-Request-Id: \u00ff\u2603\r\n', 'utf8'),
        Buffer.from(`Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`),
      ]),
    );
    expect(idem).toMatch(/^HTTP\/1\.1 201/);
  });

  it('what Bun answers itself, before the app (README Decisions): bare 431 and 400, connection closed', async () => {
    const big = await rawExchange(`GET /v1/intents HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    const nul = await rawExchange('GET /v1/intents HTTP/1.1\r\nHost: localhost\r\nX-A: a\u0000b\r\n\r\n');
    expect(nul).toMatch(/^HTTP\/1\.1 400 /);
    // Still serving afterwards.
    expect((await api.get('/v1/intents')).status).toBe(200);
  });
});

describe('size refusals carry the envelope', () => {
  it('a declared body far over any limit (64 MiB): 413 request.too_large with the envelope, nothing read', async () => {
    // Raw socket: declare the size, send only the headers, and read the answer.
    const url = new URL(s.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const sock = connect(Number(url.port), url.hostname, () => {
        sock.write(
          `POST /v1/intents HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n{`,
        );
      });
      let text = '';
      sock.on('data', (d) => {
        text += d.toString('latin1');
        if (/\r\n\r\n[\s\S]*\}\}\s*$/.test(text)) {
          sock.destroy();
          resolve(text);
        }
      });
      sock.on('error', reject);
      sock.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4).replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '').trim());
    expect(body.error.code).toBe('request.too_large');
    expect(answer.toLowerCase()).toContain('x-request-id:');
  });
});
