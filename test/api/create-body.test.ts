// A create's 201 body is the text its intent.created payload was rendered from (src/domain/intent-json.ts,
// the create route's mapResponse hook): through the real server, that text must be exactly the JSON
// of that request's own intent, with the JSON content type, for every request of a batch of
// concurrent creates (one group-commit batch renders them all before any is answered) and for a
// replay of an idempotent one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intentBody, startServerWithKey, type TestServer } from '../support/server';
import { eventsOf } from '../support/api';

let s: TestServer;
let key: string;
beforeAll(async () => {
  ({ s, key } = await startServerWithKey());
});
afterAll(async () => s.stop());

function create(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return fetch(`${s.url}/v1/intents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('create: the 201 body', () => {
  it('30 concurrent creates: each answers its own intent as one JSON text, the one its event carries', async () => {
    const n = 30;
    const sent = Array.from({ length: n }, (_, i) => intentBody({ amount: `${i + 1}.5`, reference: `body-${i}`, metadata: { i: String(i), quote: 'a"b\\c\u2028' } }));
    const answers = await Promise.all(sent.map((b) => create(b)));
    const texts = await Promise.all(answers.map((r) => r.text()));
    const api = s.api(key);
    for (let i = 0; i < n; i++) {
      const r = answers[i]!;
      expect(r.status).toBe(201);
      expect(r.headers.get('content-type')).toBe('application/json;charset=utf-8');
      const text = texts[i]!;
      const parsed = JSON.parse(text) as { intent: Record<string, unknown> & { id: string } };
      // One JSON value with the keys of { intent } only, rendered as JSON.stringify renders it.
      expect(Object.keys(parsed)).toEqual(['intent']);
      expect(JSON.stringify(parsed)).toBe(text);
      expect(parsed.intent).toMatchObject({ reference: `body-${i}`, amount: `${i + 1}.5`, metadata: { i: String(i), quote: 'a"b\\c\u2028' }, state: 'created' });
      const [created] = await eventsOf(api, parsed.intent.id);
      expect(created?.type).toBe('intent.created');
      expect(created?.data.intent).toEqual(parsed.intent);
      expect((await api.get(`/v1/intents/${parsed.intent.id}`)).body).toEqual(parsed);
    }
    expect(new Set(texts.map((t) => JSON.parse(t).intent.id)).size).toBe(n);
  });

  it('an idempotent replay answers the very same text, marked as a replay', async () => {
    const body = intentBody({ reference: 'body-replay', metadata: { z: '1', a: '2' } });
    const first = await create(body, { 'idempotency-key': 'body-replay-1' });
    const firstText = await first.text();
    const again = await create(body, { 'idempotency-key': 'body-replay-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(await again.text()).toBe(firstText);
  });

  it('a refused create still answers the error envelope (the hook leaves errors alone)', async () => {
    const r = await create(intentBody({ amount: 'twelve' }));
    expect(r.status).toBe(400);
    const e = (await r.json()) as { error: { code: string; param: string } };
    expect(e.error).toMatchObject({ code: 'request.invalid_param', param: 'amount' });
  });
});
