// Restart on the same database: the same intents come back, live ones are rehydrated into
// actors, overdue ones expire at boot with their intent.expired event, others keep waiting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRawSql } from '../support/raw-sql';
import { type ApiClient, intentBody, startServerWithKey, type TestServer } from '../support/server';
import { eventsOf, eventTypes, waitFor } from '../support/api';

let s: TestServer;
let api: ApiClient;
beforeAll(async () => {
  ({ s, api } = await startServerWithKey());
});
afterAll(async () => s.stop());

async function liveActors(): Promise<number> {
  const r = await fetch(`${s.url}/metrics`);
  const m = /^payforge_live_actors(?:\{[^}]*\})? (\d+)$/m.exec(await r.text());
  if (!m) throw new Error('payforge_live_actors missing from /metrics');
  return Number(m[1]);
}

describe('restart', () => {
  it('keeps every intent, rehydrates live actors, and expires the overdue ones within a second of boot', async () => {
    const create = async (over: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
      const r = await api.post('/v1/intents', intentBody(over), headers);
      expect(r.status).toBe(201);
      return r.body.intent;
    };
    const overdue = [await create({ ttlSeconds: 60, reference: 'overdue-1' }), await create({ ttlSeconds: 60, reference: 'overdue-2' })];
    const waiting = await create({ ttlSeconds: 60, reference: 'waiting' }, { 'idempotency-key': 'before-restart' });
    const confirmed = (await api.post(`/v1/test/intents/${(await create()).id}/simulate`, { targetState: 'confirmed' })).body.intent;
    const detected = (await api.post(`/v1/intents/${(await create()).id}/detected`)).body.intent;
    const cancelled = (await api.post(`/v1/intents/${(await create()).id}/cancel`)).body.intent;
    const failed = (await api.post(`/v1/test/intents/${(await create()).id}/simulate`, { targetState: 'failed' })).body.intent;
    expect([confirmed.state, detected.state, cancelled.state, failed.state]).toEqual(['confirmed', 'created', 'cancelled', 'failed']);
    // Live: 2 overdue + waiting + confirmed + detected. Terminal intents left memory.
    expect(await liveActors()).toBe(5);

    // Make two of them overdue on disk, as if the server had been down past their TTL.
    const past = Date.now() - 1000;
    await withRawSql(s.db, async (q) => {
      for (const i of overdue) await q.run('UPDATE intents SET expires_at = ? WHERE id = ?', past, i.id);
    });

    await s.restart();
    const ready = await fetch(`${s.url}/readyz`);
    expect(ready.status).toBe(200);

    // Overdue ones expire at once, with their event and the event's snapshot of the intent.
    for (const i of overdue) {
      const got = await waitFor(async () => {
        const r = await api.get(`/v1/intents/${i.id}`);
        return r.body.intent.state === 'expired' ? r.body.intent : null;
      }, 3000, `${i.id} expired`);
      expect(got).toMatchObject({ ...i, state: 'expired', updatedAt: got.updatedAt, expiresAt: new Date(past).toISOString() });
      const events = await eventsOf(api, i.id);
      expect(events.map((e) => e.type)).toEqual(['intent.created', 'intent.expired']);
      expect(events[1]!.data.intent).toEqual(got);
    }
    // The others are exactly as they were and keep their state.
    for (const i of [waiting, confirmed, detected, cancelled, failed]) {
      expect((await api.get(`/v1/intents/${i.id}`)).body.intent).toEqual(i);
    }
    expect(await eventTypes(api, waiting.id)).toEqual(['intent.created']);
    await waitFor(async () => (await liveActors()) === 3, 3000, 'three live actors');

    // Rehydrated actors work: confirmed -> finalized, created -> cancelled, detected only once.
    expect((await api.post(`/v1/test/intents/${confirmed.id}/simulate`, { targetState: 'finalized' })).body.intent.state).toBe('finalized');
    expect((await api.post(`/v1/intents/${detected.id}/detected`)).body.intent).toEqual(detected);
    expect(await eventTypes(api, detected.id)).toEqual(['intent.created', 'intent.detected']);
    // Idempotency keys survive the restart.
    const replay = await api.post('/v1/intents', intentBody({ ttlSeconds: 60, reference: 'waiting' }), { 'idempotency-key': 'before-restart' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.intent.id).toBe(waiting.id);
    expect((await api.post(`/v1/intents/${waiting.id}/cancel`)).body.intent.state).toBe('cancelled');
    await waitFor(async () => (await liveActors()) === 1, 3000, 'one live actor');
    expect((await api.get('/v1/intents?limit=100')).body.intents).toHaveLength(7);
  });
});
