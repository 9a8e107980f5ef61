// The OpenAPI document's own defects found by the fuzzer (issue 13, for issue 8 item 3): no inline
// `$id` (a fragment id is invalid in 3.1), every /v1 operation documents its error envelope, and
// the operational routes are marked as needing no key.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/domain/errors';
import { startTestServer, type TestServer } from '../support/server';

let s: TestServer;
let doc: any;
beforeAll(async () => {
  s = await startTestServer();
  doc = await (await fetch(`${s.url}/openapi.json`)).json();
});
afterAll(async () => s.stop());

it('has no $id anywhere', () => {
  expect(JSON.stringify(doc)).not.toContain('"$id"');
});

it('every /v1 operation documents 401, 429 and 500 with the error envelope, and its own 4xx', () => {
  const ops = Object.entries<any>(doc.paths).filter(([p]) => p.startsWith('/v1/'));
  expect(ops.length).toBeGreaterThan(10);
  for (const [path, methods] of ops) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const codes = Object.keys(op.responses ?? {});
      expect(codes, `${method} ${path}`).toEqual(expect.arrayContaining(['401', '429', '500']));
      for (const c of codes.filter((c) => Number(c) >= 400)) {
        const schema = op.responses[c].content['application/json'].schema;
        expect(schema.properties.error.required.sort(), `${method} ${path} ${c}`).toEqual(['code', 'details', 'message', 'param']);
        expect(schema.properties.error.properties.code.enum).toEqual([...ERROR_CODES]);
      }
    }
  }
  expect(Object.keys(doc.paths['/v1/intents/{id}'].get.responses)).toContain('404');
  expect(Object.keys(doc.paths['/v1/intents'].post.responses)).toEqual(expect.arrayContaining(['201', '400', '409', '413', '415', '422', '503']));
  expect(Object.keys(doc.paths['/v1/intents/{id}/refund'].post.responses)).toContain('402');
  expect(Object.keys(doc.paths['/v1/test/intents/{id}/simulate'].post.responses)).toContain('403');
});

it('health, readiness and metrics need no key; /v1 operations do', () => {
  for (const p of ['/healthz', '/readyz', '/metrics']) expect(doc.paths[p].get.security, p).toEqual([]);
  expect(doc.security).toEqual([{ bearer: [] }]);
  expect(doc.paths['/v1/intents'].get.security).toBeUndefined();
});

it('request bodies are JSON only and exact', () => {
  const create = doc.paths['/v1/intents'].post.requestBody;
  expect(Object.keys(create.content)).toEqual(['application/json']);
  expect(create.content['application/json'].schema.additionalProperties).toBe(false);
  expect(doc.paths['/v1/intents/{id}/cancel'].post.requestBody).toBeUndefined();
});

it('says what POST /detected does (it used to read "acknowledged audio receipt")', () => {
  const op = doc.paths['/v1/intents/{id}/detected'].post;
  expect(op.summary).toBe('Record that the payment was detected (sets detectedAt once)');
  expect(op.description).toContain('emits `intent.detected`');
  expect(JSON.stringify(doc)).not.toMatch(/audio/i);
});
