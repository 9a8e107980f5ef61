// A new intent's 201 is marked as answered from its own durable write (src/web/durable-answer.ts),
// so the server does not hold it for WAL syncs of batches committed after its own (src/server.ts);
// every other answer (an idempotent replay, an error, a read) still waits for the commits made so
// far. A real core over a fresh database (either store) with the real migrations.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Core } from '../../src/compose';
import { isAnsweredFromDurableWrite } from '../../src/web/durable-answer';
import { coreWithKey } from '../support/core';

const BODY = { chain: 'eip155:84532', token: 'USDC', amount: '3', requestor: '0x1111111111111111111111111111111111111111' };
let stop: () => Promise<void>;
let core: Core;
let key: string;

async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const request = new Request(`http://local${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const res = await core.app.handle(request);
  return { status: res.status, body: (await res.json()) as any, marked: isAnsweredFromDurableWrite(request) };
}

beforeEach(async () => {
  ({ core, key, stop } = await coreWithKey());
});
afterEach(() => stop());

describe('answered from a durable write', () => {
  it('a new intent (with or without a key): marked, and its row is committed when the route answers', async () => {
    const plain = await send('POST', '/v1/intents', BODY);
    expect(plain.status).toBe(201);
    expect(plain.marked).toBe(true);
    expect((await core.store.repos.intents.get(plain.body.intent.id))?.id).toBe(plain.body.intent.id);
    const keyed = await send('POST', '/v1/intents', BODY, { 'idempotency-key': 'k-1' });
    expect(keyed.status).toBe(201);
    expect(keyed.marked).toBe(true);
  });

  it('a replay, an error and a read: not marked (the server waits for the commits made so far)', async () => {
    const first = await send('POST', '/v1/intents', BODY, { 'idempotency-key': 'k-2' });
    const replay = await send('POST', '/v1/intents', BODY, { 'idempotency-key': 'k-2' });
    expect(replay.status).toBe(201);
    expect(replay.body.intent.id).toBe(first.body.intent.id);
    expect(replay.marked).toBe(false);
    const bad = await send('POST', '/v1/intents', { ...BODY, amount: '-1' });
    expect(bad.status).toBe(400);
    expect(bad.marked).toBe(false);
    const read = await send('GET', `/v1/intents/${first.body.intent.id}`);
    expect(read.status).toBe(200);
    expect(read.marked).toBe(false);
  });
});
