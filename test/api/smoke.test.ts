import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intentBody, startTestServer, type TestServer } from '../support/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.stop());

describe('harness', () => {
  it('creates and reads an intent through real HTTP', async () => {
    const { key } = s.account();
    const api = s.api(key);
    const c = await api.post('/v1/intents', intentBody());
    expect(c.status).toBe(201);
    const g = await api.get(`/v1/intents/${c.body.intent.id}`);
    expect(g.body.intent).toEqual(c.body.intent);
  });
});
