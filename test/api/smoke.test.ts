import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intentBody, startTestServer, type TestServer } from '../support/server';
import { testEngine } from '../support/test-store';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.stop());

describe('harness', () => {
  it('creates and reads an intent through real HTTP', async () => {
    const { key } = await s.account();
    const api = s.api(key);
    const c = await api.post('/v1/intents', intentBody());
    expect(c.status).toBe(201);
    const g = await api.get(`/v1/intents/${c.body.intent.id}`);
    expect(g.body.intent).toEqual(c.body.intent);
  });

  it('runs on the store PAYFORGE_TEST_STORE names (postgres: a postgres:// database; else a SQLite file)', async () => {
    const engine = testEngine();
    expect(s.store.engine).toBe(engine);
    expect(s.config.db).toMatch(engine === 'postgres' ? /^postgres:\/\// : /\.db$/);
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
  });
});
