// Bodies that declare no size (chunked) are bounded too: 413 with the envelope, not a crash.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { intentBody, startServerWithKey, type TestServer } from '../support/server';

let s: TestServer;
let key: string;
beforeAll(async () => {
  ({ s, key } = await startServerWithKey());
});
afterAll(async () => s.stop());

const post = (text: string) =>
  fetch(`${s.url}/v1/intents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(text));
        c.close();
      },
    }),
    duplex: 'half',
  } as RequestInit);

it('refuses a chunked body over 1 MiB with 413 request.too_large', async () => {
  const r = await post(JSON.stringify(intentBody({ reference: 'x'.repeat(1024 * 1024 + 1) })));
  expect(r.status).toBe(413);
  expect(((await r.json()) as any).error.code).toBe('request.too_large');
});

it('accepts a small chunked body, and answers malformed_json for a broken one', async () => {
  expect((await post(JSON.stringify(intentBody()))).status).toBe(201);
  const bad = await post('{bad');
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as any).error.code).toBe('request.malformed_json');
});
