// Issue 8 item 4: no input reaches a 5xx. fast-check sends generated and mutated bodies, ids,
// queries and headers to every operation of the live /openapi.json (bodies from the operation's
// own schema, then broken one way or another) and requires of every answer: no 5xx but a 503
// with retry_after (here: the RPC upstream is a dead port), the exact error envelope on every 4xx
// with a code whose status is the one answered and a `param` wherever a field is at fault, and
// no stack trace or file path in any body. Another account's objects are 404 on every operation
// that takes an id. Fixed seeds and run counts: the same requests on every run.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_STATUS } from '../../src/web/http-status';
import { MAX_JSON_DEPTH } from '../../src/api/json-body';
import { ERROR_CODES, type ErrorCode } from '../../src/domain/errors';
import { deadPort } from '../support/api';
import { arbitraryFor, mutated, nastyString, PROTO_NAMES } from '../support/schema-arbitrary';
import { BASE_SEPOLIA, EVM_ADDR2, intentBody, SOL_ADDR, SOLANA_DEVNET, startTestServer, type TestServer } from '../support/server';

interface Op {
  method: string;
  path: string;
  op: any;
}

let s: TestServer;
let doc: any;
let ops: Op[];
let key: string;
let otherKey: string;
let liveKey: string;
/** This account's intents in several states, and one other account's. */
const own: string[] = [];
let foreign: string;

beforeAll(async () => {
  const rpc = [`http://127.0.0.1:${await deadPort()}`];
  s = await startTestServer({
    networks: { [BASE_SEPOLIA]: { rpc }, [SOLANA_DEVNET]: { rpc }, 'eip155:42431': { rpc } },
    rpc: { timeoutMs: 500, breakerFailures: 3, breakerCooldownMs: 1000, retryAfterSeconds: 2 },
    rateLimit: { perSecond: 100_000, burst: 100_000 },
  });
  const a = await s.account({ plan: 'pro' });
  key = a.key;
  liveKey = await s.key(a.accountId, 'live');
  otherKey = (await s.account({ plan: 'pro' })).key;
  const api = s.api(key);
  for (const [body, to] of [
    [intentBody(), null],
    [intentBody({ fulfiller: EVM_ADDR2 }), 'confirmed'],
    [{ chain: SOLANA_DEVNET, token: 'USDC', amount: '1.5', requestor: SOL_ADDR }, 'failed'],
    [intentBody(), 'expired'],
  ] as const) {
    const i = (await api.post('/v1/intents', body)).body.intent;
    if (to) await api.post(`/v1/test/intents/${i.id}/simulate`, { targetState: to });
    own.push(i.id);
  }
  foreign = (await s.api(otherKey).post('/v1/intents', intentBody())).body.intent.id;
  own.push((await api.get('/v1/events?limit=1')).body.events[0].eventId);
  doc = await (await fetch(`${s.url}/openapi.json`)).json();
  ops = Object.entries<any>(doc.paths).flatMap(([path, methods]) => Object.entries<any>(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, op })));
});
afterAll(async () => s.stop());

const CODES = new Set<string>(ERROR_CODES);
/** What a leaked stack or source location looks like. */
const LEAK = /\n\s+at |\bat [\w.<>]+ \(|\.(ts|js|mjs):\d+|\/(work|home|tmp|usr|src|node_modules)\/|TypeError|ReferenceError|SyntaxError: /;

const depthOf = (v: unknown): number =>
  typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v as object).map(depthOf)) : 0;

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The JSON the body holds, when it is JSON. */
  json?: unknown;
}

async function send(r: Sent): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${s.url}${r.url}`, { method: r.method, headers: r.headers, body: r.body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The answer obeys the rules whatever was sent; returns the error code, if any. */
function check(r: Sent, a: { status: number; headers: Headers; text: string }): string | null {
  const where = `${r.method} ${r.url} ${JSON.stringify(r.headers)} ${r.body?.slice(0, 300)} -> ${a.status} ${a.text.slice(0, 500)}`;
  expect(a.text, where).not.toMatch(LEAK);
  expect(a.headers.get('x-request-id'), where).toBeTruthy();
  if (a.status >= 500) {
    expect(a.status, where).toBe(503);
    const retry = JSON.parse(a.text).error.details.retry_after;
    expect(Number.isInteger(retry) && retry > 0, where).toBe(true);
    expect(a.headers.get('retry-after'), where).toBe(String(retry));
  }
  if (a.status < 400) return null;
  const body = JSON.parse(a.text);
  expect(Object.keys(body), where).toEqual(['error']);
  expect(Object.keys(body.error).sort(), where).toEqual(['code', 'details', 'message', 'param']);
  const { code, message, param, details } = body.error;
  expect(CODES.has(code), where).toBe(true);
  expect(HTTP_STATUS[code as ErrorCode], where).toBe(a.status);
  expect(typeof message === 'string' && message.length > 0, where).toBe(true);
  expect(param === null || (typeof param === 'string' && param.length > 0), where).toBe(true);
  expect(typeof details === 'object' && details !== null && !Array.isArray(details), where).toBe(true);
  // A field at fault is named; only a body that is not a JSON object (or nests too deep) has none.
  if (code === 'request.invalid_param' && param === null) {
    const j = r.json;
    const wholeBody = r.body !== undefined && (typeof j !== 'object' || j === null || Array.isArray(j) || depthOf(j) > MAX_JSON_DEPTH);
    expect(wholeBody, where).toBe(true);
  }
  return code;
}

// --- what a request is made of -------------------------------------------------------------

/** Percent-encoded as UTF-8 (a lone surrogate becomes U+FFFD, as a browser would send it). */
const enc = (x: string): string => encodeURIComponent(new TextDecoder().decode(new TextEncoder().encode(x)));

/** An id already encoded for the path: real ones, another account's, made-up, hostile, broken escapes. */
const idArb = () =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...own) },
    fc.constant(foreign),
    fc.constantFrom('pi_doesnotexist00000000000', 'evt_x', 'pay_x', 'whd_x', ...PROTO_NAMES).map(enc),
    nastyString.filter((x) => x.length > 0).map(enc),
    fc.constantFrom('pi_%ZZ', '%C0%AF', '%E0%A4%A', '%FF', '..%2F..', '%00'),
  );

const keyArb = () =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${key}`) },
    fc.constant(`Bearer ${otherKey}`),
    fc.constant(`Bearer ${liveKey}`),
    fc.constantFrom('', 'Bearer', 'Bearer pk_test_short', `bearer ${key}`, `Bearer ${key} x`, 'Basic abc', `Bearer ${key.slice(0, -1)}A`),
  );

const contentTypeArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  fc.constantFrom('application/json; charset=utf-8', 'application/merge-patch+json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', ''),
);

/** Query values: from the parameter's schema, or anything; sometimes an unknown name. */
function queryArb(o: Op): fc.Arbitrary<[string, string][]> {
  const params = ((o.op.parameters ?? []) as any[]).filter((p) => p.in === 'query');
  const one = params.map((p) =>
    fc.option(
      fc.oneof(
        arbitraryFor(p.schema, doc.components.schemas).map((v) => String(v)),
        nastyString,
        fc.integer({ min: -5, max: 500 }).map(String),
      ),
      { nil: undefined },
    ).map((v): [string, string][] => (v === undefined ? [] : [[p.name, v]])),
  );
  const extra = fc.option(fc.tuple(fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.string({ minLength: 1, maxLength: 10 })), nastyString), { freq: 6, nil: undefined });
  return fc.tuple(fc.tuple(...one), extra).map(([pairs, x]) => [...pairs.flat(), ...(x ? [x] : [])]);
}

/** A body: the operation's schema mutated, raw text, or nothing; with the JSON it holds. */
function bodyArb(o: Op): fc.Arbitrary<{ body?: string; json?: unknown }> {
  const schema = o.op.requestBody?.content?.['application/json']?.schema;
  const asJson = (schema ? mutated(arbitraryFor(schema, doc.components.schemas)) : fc.oneof(fc.constant({}), fc.jsonValue({ maxDepth: 2 }))).map((json) => ({ body: JSON.stringify(json), json }));
  return fc.oneof(
    { weight: 8, arbitrary: asJson },
    fc.constant({}),
    fc.string({ maxLength: 60 }).map((body) => ({ body, json: safeParse(body) })),
    fc.constantFrom('{"__proto__":{"x":1}}', '{"a":1,"a":2}', '[]', 'null', '"x"', '{', '{"constructor":{"prototype":{}}}', '\ufeff{}').map((body) => ({ body, json: safeParse(body) })),
    fc.integer({ min: MAX_JSON_DEPTH - 1, max: MAX_JSON_DEPTH + 3 }).map((n) => {
      const body = `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
      return { body, json: JSON.parse(body) };
    }),
  );
}

function safeParse(t: string): unknown {
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

function requestArb(o: Op): fc.Arbitrary<Sent> {
  const takesBody = o.method !== 'GET';
  return fc
    .record({
      id: idArb(),
      query: queryArb(o),
      body: takesBody ? bodyArb(o) : fc.constant<{ body?: string; json?: unknown }>({}),
      auth: keyArb(),
      contentType: contentTypeArb,
      idem: fc.option(fc.oneof(fc.string({ maxLength: 300 }).map((x) => x.replace(/[^\x20-\x7e]/g, '')), fc.constantFrom(...PROTO_NAMES)), { freq: 4, nil: undefined }),
      requestId: fc.option(fc.string({ maxLength: 80 }).map((x) => x.replace(/[^\x20-\x7e]/g, '')), { freq: 5, nil: undefined }),
    })
    .map(({ id, query, body, auth, contentType, idem, requestId }) => {
      const qs = query.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
      const url = `${o.path.replace('{id}', id)}${qs ? `?${qs}` : ''}`;
      const headers: Record<string, string> = {};
      if (auth) headers.authorization = auth;
      if (body.body !== undefined && contentType) headers['content-type'] = contentType;
      if (idem !== undefined) headers['idempotency-key'] = idem;
      if (requestId !== undefined) headers['x-request-id'] = requestId;
      return { method: o.method, url, headers, ...body };
    });
}

// --- properties ----------------------------------------------------------------------------

describe('every operation of /openapi.json, generated and mutated input', () => {
  it('covers every operation of the document', () => {
    expect(ops.length).toBeGreaterThanOrEqual(19);
    expect(ops.map((o) => `${o.method} ${o.path}`)).toEqual(expect.arrayContaining(['POST /v1/intents', 'POST /v1/intents/{id}/submit', 'GET /v1/payments']));
  });

  it('no 5xx but a 503 with retry_after, the envelope on every 4xx, no stack or path', async () => {
    const seen = new Map<string, Set<string>>();
    for (const [n, o] of ops.entries()) {
      await fc.assert(
        fc.asyncProperty(requestArb(o), async (r) => {
          const code = check(r, await send(r));
          const k = `${o.method} ${o.path}`;
          if (!seen.has(k)) seen.set(k, new Set());
          seen.get(k)!.add(code ?? 'ok');
        }),
        { seed: 0x8f1 + n, numRuns: 400, endOnFailure: true },
      );
    }
    if (process.env.FUZZ_REPORT) console.log(Object.fromEntries([...seen].map(([k, v]) => [k, [...v].sort()])));
    // The generator reaches past validation: creates succeed, and verbs refuse on their own terms.
    expect(seen.get('POST /v1/intents')!.has('ok')).toBe(true);
    const all = new Set([...seen.values()].flatMap((x) => [...x]));
    for (const c of ['request.invalid_param', 'request.malformed_json', 'auth.invalid_api_key', 'intent.not_found', 'request.unsupported_media_type', 'intent.invalid_state']) {
      expect(all.has(c), `${c} never answered: ${[...all].join(', ')}`).toBe(true);
    }
  });

  it("another account's objects are 404 on every operation that takes an id", async () => {
    const valid: Record<string, unknown> = {
      'PATCH /v1/intents/{id}': { updatedAt: new Date().toISOString() },
      'POST /v1/intents/{id}/build': { fulfiller: EVM_ADDR2 },
      'POST /v1/intents/{id}/submit': { txSignature: `0x${'ab'.repeat(32)}` },
      'POST /v1/test/intents/{id}/simulate': { targetState: 'confirmed' },
    };
    const other = s.api(otherKey);
    const foreignEvent = (await other.get('/v1/events?limit=1')).body.events[0].eventId;
    const withIds = ops.filter((o) => o.path.includes('{id}'));
    expect(withIds.length).toBeGreaterThanOrEqual(10);
    for (const o of withIds) {
      const id = o.path.startsWith('/v1/events') ? foreignEvent : foreign;
      const body = valid[`${o.method} ${o.path}`];
      const r: Sent = {
        method: o.method,
        url: o.path.replace('{id}', id),
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body), json: body } : {}),
      };
      const a = await send(r);
      expect(a.status, `${o.method} ${o.path}: ${a.text}`).toBe(404);
      expect(check(r, a)).toMatch(/^(intent|event|payment|webhook)\.not_found$/);
    }
  });
});

describe('what the fuzzer found, pinned', () => {
  it('an unknown empty key is named `""`; a key with "/" or "~" is named as sent', async () => {
    const api = s.api(key);
    const empty = await api.post('/v1/intents', { ...intentBody(), '': 1 });
    expect(empty.status).toBe(400);
    expect(empty.body.error.param).toBe('""');
    const slash = await api.post('/v1/intents', { ...intentBody(), 'a/b~c': 1 });
    expect(slash.body.error.param).toBe('a/b~c');
    const nested = await api.post('/v1/intents', intentBody({ metadata: { 'x/y': 5 } }));
    expect(nested.body.error.param).toBe('metadata.x/y');
    const cancelEmpty = await api.post(`/v1/intents/${own[0]}/cancel`, { '': 1 });
    expect([cancelEmpty.status, cancelEmpty.body.error.param]).toEqual([400, '""']);
  });

  it('an operation without a body refuses a JSON body that is not an object (no param), and takes {} or nothing', async () => {
    const api = s.api(key);
    const id = (await api.post('/v1/intents', intentBody())).body.intent.id;
    for (const body of ['"x"', '5', '[1]', 'null', 'true']) {
      const r = await api.post(`/v1/intents/${id}/detected`, body);
      expect([r.status, r.body.error?.code, r.body.error?.param], body).toEqual([400, 'request.invalid_param', null]);
    }
    expect((await api.post(`/v1/intents/${id}/detected`, {})).status).toBe(200);
    expect((await api.post(`/v1/intents/${id}/detected`)).status).toBe(200);
  });
});
