// Contract 13 / issue 12 item 5 through the real server on a real PostgreSQL: while the database
// is down, /readyz answers 503 and requests answer 503 store.unavailable with Retry-After (no
// hang, no crash); once it is back the same process serves again by itself, nothing lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statesTagged } from '../../machines/judge';
import { validate } from '../../src/config';
import { DEFAULT_CONFIG, type Config } from '../../src/config.types';
import { startServer, type ServerHandle } from '../../src/server';
import { openStore } from '../../src/store/store';
import { expectError } from '../support/api';
import { freshDatabaseUrl, pgCluster } from '../support/postgres';
import { client, intentBody } from '../support/server';

let server: ServerHandle;
let key: string;

beforeAll(async () => {
  const config: Config = validate({ ...structuredClone(DEFAULT_CONFIG), port: 0, db: await freshDatabaseUrl(), logLevel: 'error' });
  server = await startServer(config, { bootstrap: false });
  // An account and key written as the CLI writes them, on the same database.
  const admin = await openStore(config, { states: { live: statesTagged('live'), watching: statesTagged('watching') }, log: () => {}, oneShot: true });
  const account = await admin.repos.accounts.create({ name: 'shop', plan: 'pro' });
  key = (await admin.repos.apiKeys.create({ accountId: account.id, mode: 'test' })).key;
  await admin.close();
});

afterAll(async () => {
  const cluster = await pgCluster();
  if (!cluster.running()) await cluster.start();
  await server?.stop();
});

async function until<T>(what: string, fn: () => Promise<T | null>, timeoutMs = 30_000): Promise<T> {
  for (const end = Date.now() + timeoutMs; ; ) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('PostgreSQL unreachable, then back', () => {
  it('503 store.unavailable and /readyz 503 while down; serves again by itself after, nothing acknowledged lost', async () => {
    const api = client(server.url, key);
    const before = await api.post('/v1/intents', intentBody(), { 'idempotency-key': 'before-outage' });
    expect(before.status).toBe(201);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

    const cluster = await pgCluster();
    await cluster.stop('fast');
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable' });
    for (const r of [await api.get('/v1/intents'), await api.post('/v1/intents', intentBody(), { 'idempotency-key': 'during-outage' })]) {
      const e = expectError(r, 503, 'store.unavailable');
      expect(e.details.retry_after).toBeGreaterThan(0);
      expect(r.headers.get('retry-after')).toBe(String(e.details.retry_after));
    }

    await cluster.start();
    await until('/readyz 200', async () => ((await fetch(`${server.url}/readyz`)).status === 200 ? true : null));
    const during = await api.post('/v1/intents', intentBody(), { 'idempotency-key': 'during-outage' });
    expect(during.status).toBe(201);
    const list = await api.get('/v1/intents');
    expect(list.status).toBe(200);
    expect(list.body.intents.map((i: { id: string }) => i.id).sort()).toEqual([before.body.intent.id, during.body.intent.id].sort());
  });
});
