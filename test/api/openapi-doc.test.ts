// The OpenAPI document (issue 8 item 3): valid OpenAPI 3.1 with zero findings from Redocly's
// strict ruleset (the engine of `redocly lint`, run in-process), named component schemas for
// what an integrator handles, enums and formats, every /v1 error status with the envelope, no
// inline `$id`, and the operational routes marked as needing no key.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/domain/errors';
import { EVENT_TYPES, INTENT_STATES } from '../../src/domain/intent';
import { PAYMENT_REASONS, PAYMENT_STATUSES } from '../../src/domain/payment';
import { startTestServer, type TestServer } from '../support/server';

let s: TestServer;
let doc: any;
let text: string;
beforeAll(async () => {
  s = await startTestServer();
  const r = await fetch(`${s.url}/openapi.json`);
  expect(r.headers.get('content-type')).toContain('application/json');
  text = await r.text();
  doc = JSON.parse(text);
});
afterAll(async () => s.stop());

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const success = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema;
const schemas = () => doc.components.schemas;

it('lints clean: Redocly recommended-strict, zero errors and zero warnings', async () => {
  const config = await createConfig({
    extends: ['recommended-strict'],
    // /healthz, /readyz and /metrics take no key and no input: they have no 4xx to document.
    rules: { 'operation-4xx-response': 'off' },
  } as never);
  const problems = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
  expect(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  // The rule left off is off only where it cannot apply: every /v1 operation has a 4xx.
  for (const [path, methods] of Object.entries<any>(doc.paths).filter(([p]) => p.startsWith('/v1/'))) {
    for (const op of Object.values<any>(methods)) expect(Object.keys(op.responses).some((c) => c.startsWith('4')), path).toBe(true);
  }
});

/** `redocly lint` itself (the CLI the issue names), offline, on a copy of the live document. */
async function redoclyLint(source: string): Promise<{ totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string }> }> {
  const dir = mkdtempSync(join(tmpdir(), 'pf-redocly-'));
  writeFileSync(join(dir, 'openapi.json'), source);
  writeFileSync(join(dir, 'redocly.yaml'), 'extends:\n  - recommended-strict\nrules:\n  operation-4xx-response: off\n');
  const proc = Bun.spawn(['node', join(import.meta.dirname, '../../node_modules/@redocly/cli/bin/cli.js'), 'lint', 'openapi.json', '--config', 'redocly.yaml', '--format=json'], {
    cwd: dir,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  const json = out.slice(out.indexOf('{'));
  if (!json) throw new Error(`redocly lint printed no report:\n${err}`);
  return JSON.parse(json);
}

it('`redocly lint` (the CLI) finds zero errors and zero warnings, and fails a broken copy', async () => {
  const clean = await redoclyLint(text);
  expect(clean.problems.map((p) => p.ruleId)).toEqual([]);
  expect(clean.totals).toMatchObject({ errors: 0, warnings: 0 });
  const broken = structuredClone(doc);
  broken.paths['/v1/intents/{id}'].get.parameters = [];
  const bad = await redoclyLint(JSON.stringify(broken));
  expect(bad.totals.errors).toBeGreaterThan(0);
}, 60_000);

it('a broken document does not lint clean (the check can fail)', async () => {
  const config = await createConfig({ extends: ['recommended-strict'] } as never);
  const broken = structuredClone(doc);
  broken.paths['/v1/intents/{id}'].get.parameters = [];
  broken.components.schemas.PaymentIntent.properties.state = { $ref: '#/components/schemas/Nope' };
  const problems = await lintFromString({ source: JSON.stringify(broken), absoluteRef: 'openapi.json', config });
  expect(problems.map((p) => p.ruleId)).toEqual(expect.arrayContaining(['path-parameters-defined', 'no-unresolved-refs']));
});

it('names the schemas an integrator handles, and every /v1 answer refers to them', () => {
  expect(Object.keys(schemas())).toEqual(
    expect.arrayContaining([
      'PaymentIntent', 'IntentResponse', 'IntentList', 'LatePayment', 'Transaction', 'BuildResponse', 'SubmitResponse', 'Payment',
      'PaymentList', 'PaymentResponse', 'Event', 'EventList', 'WebhookDelivery', 'WebhookDeliveryList', 'WebhookDeliveryResponse',
      'Error', 'ErrorCode', 'IntentState', 'EventType', 'PaymentStatus', 'PaymentReason', 'CreateIntentRequest', 'SimulateRequest',
    ]),
  );
  expect(success('/v1/intents', 'post', '201')).toEqual(ref('IntentResponse'));
  expect(success('/v1/intents', 'get', '200')).toEqual(ref('IntentList'));
  expect(success('/v1/intents/{id}/build', 'post', '200')).toEqual(ref('BuildResponse'));
  expect(success('/v1/payments/{id}', 'get', '200')).toEqual(ref('PaymentResponse'));
  expect(success('/v1/events/{id}', 'get', '200')).toEqual(ref('Event'));
  expect(success('/v1/webhooks', 'get', '200')).toEqual(ref('WebhookDeliveryList'));
  expect(doc.paths['/v1/intents'].post.requestBody.content['application/json'].schema).toEqual(ref('CreateIntentRequest'));
  expect(schemas().IntentResponse.properties.intent).toEqual(ref('PaymentIntent'));
  expect(schemas().PaymentIntent.properties.latePayment).toEqual({ anyOf: [ref('LatePayment'), { type: 'null' }] });
  // Every /v1 success answer is a named schema; nothing is left untyped.
  for (const [path, methods] of Object.entries<any>(doc.paths).filter(([p]) => p.startsWith('/v1/'))) {
    for (const [method, op] of Object.entries<any>(methods)) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        expect(r.content['application/json'].schema.$ref, `${method} ${path} ${status}`).toMatch(/^#\/components\/schemas\/\w+$/);
      }
    }
  }
});

it('enums, formats and exact objects', () => {
  const S = schemas();
  expect(S.IntentState.enum).toEqual([...INTENT_STATES]);
  expect(S.EventType.enum).toEqual([...EVENT_TYPES]);
  expect(S.ErrorCode.enum).toEqual([...ERROR_CODES]);
  expect(S.PaymentStatus.enum).toEqual([...PAYMENT_STATUSES]);
  expect(S.PaymentReason.enum).toEqual([...PAYMENT_REASONS]);
  expect(S.DeliveryStatus.enum).toEqual(['pending', 'delivered', 'failed']);
  expect(S.TransactionFormat.enum).toEqual(['solana_v0_message', 'evm_eip1559']);
  // A response enum claims no default (t.UnionEnum's would say state defaults to "created").
  expect(JSON.stringify(S)).not.toMatch(/"default":"(created|intent\.created|request\.malformed_json|pending)"/);
  const I = S.PaymentIntent;
  expect(I.additionalProperties).toBe(false);
  expect(I.required).toHaveLength(Object.keys(I.properties).length);
  expect(I.properties.state).toEqual(ref('IntentState'));
  for (const f of ['createdAt', 'updatedAt', 'expiresAt']) expect(I.properties[f].format, f).toBe('date-time');
  expect(I.properties.confirmedAt).toEqual({ anyOf: [expect.objectContaining({ format: 'date-time' }), { type: 'null' }] });
  expect(I.properties.amountBaseUnits.pattern).toBe('^[0-9]+$');
  expect(I.properties.metadata).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
  expect(S.WebhookDelivery.properties.createdAt.format).toBe('date-time');
  expect(S.Payment.properties.detectedAt.format).toBe('date-time');
  expect(S.Event.properties.data.anyOf).toEqual([ref('IntentEventData'), ref('PaymentEventData')]);
  // limit is an integer 1..100 to a client (the wire form is text, as for every query value).
  const limit = doc.paths['/v1/events'].get.parameters.find((p: any) => p.name === 'limit');
  expect(limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
  expect(doc.paths['/v1/payments'].get.parameters.find((p: any) => p.name === 'status').schema).toEqual(ref('PaymentStatus'));
  expect(doc.paths['/v1/intents'].post.parameters).toEqual([expect.objectContaining({ name: 'Idempotency-Key', in: 'header' })]);
});

it('has no $id anywhere', () => {
  expect(text).not.toContain('"$id"');
});

it('every /v1 operation documents 401, 429 and 500 with the error envelope, and its own 4xx', () => {
  const ops = Object.entries<any>(doc.paths).filter(([p]) => p.startsWith('/v1/'));
  expect(ops.length).toBeGreaterThan(10);
  const E = schemas().Error;
  expect(E.properties.error.required.sort()).toEqual(['code', 'details', 'message', 'param']);
  expect(E.properties.error.properties.code).toEqual(expect.objectContaining(ref('ErrorCode')));
  for (const [path, methods] of ops) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const codes = Object.keys(op.responses ?? {});
      expect(codes, `${method} ${path}`).toEqual(expect.arrayContaining(['401', '429', '500']));
      for (const c of codes.filter((c) => Number(c) >= 400)) {
        const r = op.responses[c];
        expect(r.content['application/json'].schema, `${method} ${path} ${c}`).toEqual(ref('Error'));
        expect(r.headers['X-Request-Id']).toBeDefined();
        if (c === '429' || c === '503') expect(r.headers['Retry-After'], `${method} ${path} ${c}`).toBeDefined();
      }
    }
  }
  expect(doc.paths['/v1/intents/{id}'].get.responses['404'].description).toContain('`intent.not_found`');
  expect(doc.paths['/v1/intents/{id}/refund'].post.responses['422'].description).toContain('`intent.fulfiller_required`');
  expect(Object.keys(doc.paths['/v1/intents'].post.responses)).toEqual(expect.arrayContaining(['201', '400', '409', '413', '415', '422', '503']));
  expect(Object.keys(doc.paths['/v1/intents/{id}/refund'].post.responses)).toContain('402');
  expect(Object.keys(doc.paths['/v1/test/intents/{id}/simulate'].post.responses)).toContain('403');
});

it('health, readiness and metrics need no key; /v1 operations do', () => {
  for (const p of ['/healthz', '/readyz', '/metrics']) expect(doc.paths[p].get.security, p).toEqual([]);
  expect(doc.security).toEqual([{ bearer: [] }]);
  expect(doc.paths['/v1/intents'].get.security).toBeUndefined();
  expect(doc.paths['/readyz'].get.responses['503'].content['application/json'].schema).toEqual(ref('Readiness'));
  expect(Object.keys(doc.paths['/metrics'].get.responses['200'].content)).toEqual(['text/plain']);
});

it('request bodies are JSON only and exact; unique operation ids', () => {
  const create = doc.paths['/v1/intents'].post.requestBody;
  expect(Object.keys(create.content)).toEqual(['application/json']);
  expect(schemas().CreateIntentRequest.additionalProperties).toBe(false);
  expect(doc.paths['/v1/intents/{id}/cancel'].post.requestBody).toBeUndefined();
  expect(doc.paths['/v1/intents/{id}/build'].post.requestBody.required).toBe(false);
  const ids = Object.values<any>(doc.paths).flatMap((m) => Object.values<any>(m).map((op) => op.operationId));
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual(expect.arrayContaining(['createIntent', 'getIntent', 'simulateTransition', 'refundIntent']));
});

it('says what POST /detected does (it used to read "acknowledged audio receipt")', () => {
  const op = doc.paths['/v1/intents/{id}/detected'].post;
  expect(op.summary).toBe('Record that the payment was detected (sets detectedAt once)');
  expect(op.description).toContain('emits `intent.detected`');
  expect(JSON.stringify(doc)).not.toMatch(/audio/i);
});
