// The intents API after create, through the real server: auth, plans, isolation, get, list,
// patch, cancel, detected, refund, simulate (every target and its source states), and the 409s
// of every forbidden move with their details.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setEndpoint } from '../../src/webhooks/set-endpoint';
import { BASE_SEPOLIA, client, EVM_ADDR2, intentBody, SOL_ADDR, SOLANA_DEVNET, startTestServer, type ApiClient, type TestServer } from '../support/server';
import { eventsOf, eventTypes, expectError } from '../support/api';
import { webhookServices } from '../../src/webhooks/services';

let s: TestServer;
let api: ApiClient;
let accountId: string;
let live: ApiClient;
beforeAll(async () => {
  s = await startTestServer();
  const a = await s.account({ plan: 'pro' });
  accountId = a.accountId;
  api = s.api(a.key);
  live = s.api(await s.key(a.accountId, 'live'));
});
afterAll(async () => {
  await s.stop();
});

const SOL_ADDR2 = 'So11111111111111111111111111111111111111112';

async function create(over: Record<string, unknown> = {}, c: ApiClient = api) {
  const r = await c.post('/v1/intents', intentBody({ fulfiller: EVM_ADDR2, ...over }));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.intent as any;
}
async function createSol(over: Record<string, unknown> = {}) {
  return create({ chain: SOLANA_DEVNET, requestor: SOL_ADDR, fulfiller: SOL_ADDR2, ...over });
}
const simulate = (id: string, targetState: string, extra: Record<string, unknown> = {}, c: ApiClient = api) =>
  c.post(`/v1/test/intents/${id}/simulate`, { targetState, ...extra });

async function inState(state: string, sol = false): Promise<any> {
  const i = sol ? await createSol() : await create();
  const steps: Record<string, string[]> = {
    created: [], confirmed: ['confirmed'], finalized: ['confirmed', 'finalized'], failed: ['failed'], expired: ['expired'],
  };
  if (state === 'cancelled') {
    expect((await api.post(`/v1/intents/${i.id}/cancel`)).status).toBe(200);
  } else {
    for (const t of steps[state]!) expect((await simulate(i.id, t)).status).toBe(200);
  }
  const g = await api.get(`/v1/intents/${i.id}`);
  expect(g.body.intent.state).toBe(state);
  return g.body.intent;
}

describe('401 auth.invalid_api_key', () => {
  it('missing, malformed, unknown and revoked keys', async () => {
    expectError(await client(s.url, null).get('/v1/intents'), 401, 'auth.invalid_api_key');
    expectError(await client(s.url, 'pk_test_short').get('/v1/intents'), 401, 'auth.invalid_api_key');
    expectError(await client(s.url, 'sk_test_' + 'a'.repeat(32)).get('/v1/intents'), 401, 'auth.invalid_api_key');
    expectError(await api.req('GET', '/v1/intents', undefined, { authorization: 'Basic abc' }), 401, 'auth.invalid_api_key');
    expectError(await client(s.url, 'pk_test_' + 'a'.repeat(32)).get('/v1/intents'), 401, 'auth.invalid_api_key');
    const key = await s.key(accountId, 'test');
    expect((await s.api(key).get('/v1/intents')).status).toBe(200);
    await s.repos.apiKeys.revoke(key);
    expectError(await s.api(key).get('/v1/intents'), 401, 'auth.invalid_api_key');
    expectError(await s.api(key).post('/v1/intents', intentBody()), 401, 'auth.invalid_api_key');
  });
});

describe('402, 403 and 404', () => {
  it('402 plan.upgrade_required for refunds and webhook retry on free, with details.feature', async () => {
    const free = await s.account({ plan: 'free' });
    const fapi = s.api(free.key);
    const i = await create({}, fapi);
    expect((await simulate(i.id, 'confirmed', {}, fapi)).status).toBe(200);
    let e = expectError(await fapi.post(`/v1/intents/${i.id}/refund`), 402, 'plan.upgrade_required');
    expect(e.details.feature).toBeTruthy();
    e = expectError(await fapi.post('/v1/webhooks/whd_whatever/retry'), 402, 'plan.upgrade_required');
    expect(e.details.feature).toBeTruthy();
    expect((await fapi.get(`/v1/intents/${i.id}`)).body.intent.refundedBy).toBeNull();
  });

  it('403 auth.test_key_required for simulate with a live key', async () => {
    const i = await create({ chain: 'eip155:8453' }, live);
    expectError(await simulate(i.id, 'confirmed', {}, live), 403, 'auth.test_key_required');
    expect((await live.get(`/v1/intents/${i.id}`)).body.intent.state).toBe('created');
  });

  it('404 intent.not_found for another account and for the other mode of the same account, on every route', async () => {
    const mine = await create();
    const other = s.api((await s.account()).key);
    for (const c of [other, live]) {
      expectError(await c.get(`/v1/intents/${mine.id}`), 404, 'intent.not_found');
      expectError(await c.patch(`/v1/intents/${mine.id}`, { updatedAt: mine.updatedAt, reference: 'x' }), 404, 'intent.not_found');
      for (const verb of ['cancel', 'detected', 'refund', 'build']) {
        expectError(await c.post(`/v1/intents/${mine.id}/${verb}`, {}), 404, 'intent.not_found');
      }
      expectError(await c.post(`/v1/intents/${mine.id}/submit`, { signedTransaction: 'AAAA' }), 404, 'intent.not_found');
      expect((await c.get('/v1/intents?limit=100')).body.intents.map((i: any) => i.id)).not.toContain(mine.id);
      expectError(await c.get(`/v1/intents?starting_after=${mine.id}`), 400, 'request.invalid_param', 'starting_after');
    }
    expectError(await simulate(mine.id, 'confirmed', {}, other), 404, 'intent.not_found');
    expectError(await api.get('/v1/intents/pi_doesnotexist'), 404, 'intent.not_found');
    // Nothing changed.
    expect((await api.get(`/v1/intents/${mine.id}`)).body.intent).toEqual(mine);
  });

  it('every 404 for an unknown id has the same shape: param null (not a field error, contract 10), details name the id', async () => {
    const cases: Array<[string, string, string, Record<string, string>]> = [
      ['GET', '/v1/intents/pi_nope', 'intent.not_found', { intent_id: 'pi_nope' }],
      ['POST', '/v1/intents/pi_nope/cancel', 'intent.not_found', { intent_id: 'pi_nope' }],
      ['GET', '/v1/payments/pay_nope', 'payment.not_found', { payment_id: 'pay_nope' }],
      ['GET', '/v1/events/evt_nope', 'event.not_found', { event_id: 'evt_nope' }],
      ['POST', '/v1/webhooks/whd_nope/retry', 'webhook.not_found', { delivery_id: 'whd_nope' }],
    ];
    for (const [method, path, code, details] of cases) {
      const e = expectError(await api.req(method, path), 404, code, null);
      expect(e.details, path).toEqual(details);
    }
  });
});

describe('get and list', () => {
  it('lists newest first with limit, starting_after, state and reference filters, hasMore', async () => {
    const own = s.api((await s.account()).key);
    const made: any[] = [];
    for (let n = 0; n < 5; n++) made.push(await create({ reference: n % 2 ? 'odd' : 'even' }, own));
    expect((await simulate(made[1].id, 'confirmed', {}, own)).status).toBe(200);
    const ids = made.map((i) => i.id).reverse();

    let r = await own.get('/v1/intents');
    expect(r.status).toBe(200);
    expect(r.body.intents.map((i: any) => i.id)).toEqual(ids);
    expect(r.body.hasMore).toBe(false);
    r = await own.get('/v1/intents?limit=2');
    expect(r.body.intents.map((i: any) => i.id)).toEqual(ids.slice(0, 2));
    expect(r.body.hasMore).toBe(true);
    r = await own.get(`/v1/intents?limit=2&starting_after=${ids[1]}`);
    expect(r.body.intents.map((i: any) => i.id)).toEqual(ids.slice(2, 4));
    expect(r.body.hasMore).toBe(true);
    r = await own.get(`/v1/intents?limit=2&starting_after=${ids[3]}`);
    expect(r.body.intents.map((i: any) => i.id)).toEqual(ids.slice(4));
    expect(r.body.hasMore).toBe(false);
    r = await own.get('/v1/intents?state=confirmed');
    expect(r.body.intents.map((i: any) => i.id)).toEqual([made[1].id]);
    r = await own.get('/v1/intents?reference=odd');
    expect(r.body.intents.map((i: any) => i.id)).toEqual([made[3].id, made[1].id]);
    r = await own.get('/v1/intents?reference=even&state=created&limit=1');
    expect(r.body.intents.map((i: any) => i.id)).toEqual([made[4].id]);
    expect(r.body.hasMore).toBe(true);
    expect((await own.get('/v1/intents?limit=100')).body.intents).toHaveLength(5);
    expectError(await own.get('/v1/intents?state=bogus'), 400, 'request.invalid_param', 'state');
  });

  it('400 with param limit outside 1..100 on /v1/intents, /v1/webhooks and /v1/events', async () => {
    for (const path of ['/v1/intents', '/v1/webhooks', '/v1/events']) {
      for (const limit of ['0', '101', 'abc', '-1', '1.5']) {
        expectError(await api.get(`${path}?limit=${limit}`), 400, 'request.invalid_param', 'limit');
      }
      expect((await api.get(`${path}?limit=1`)).status).toBe(200);
      expect((await api.get(`${path}?limit=100`)).status).toBe(200);
    }
  });
});

describe('patch with optimistic concurrency', () => {
  it('updates reference and metadata with the current updatedAt; a stale one is 409 with current_updated_at; no event', async () => {
    const i = await create({ reference: 'before', metadata: { a: '1' } });
    const r = await api.patch(`/v1/intents/${i.id}`, { updatedAt: i.updatedAt, reference: 'after', metadata: { b: '2' } });
    expect(r.status).toBe(200);
    expect(r.body.intent).toMatchObject({ reference: 'after', metadata: { b: '2' }, state: 'created' });
    expect(Date.parse(r.body.intent.updatedAt)).toBeGreaterThan(Date.parse(i.updatedAt));
    const e = expectError(await api.patch(`/v1/intents/${i.id}`, { updatedAt: i.updatedAt, reference: 'lost' }), 409, 'intent.stale_update');
    expect(e.details.current_updated_at).toBe(r.body.intent.updatedAt);
    expect((await api.get(`/v1/intents/${i.id}`)).body.intent.reference).toBe('after');
    // Two writers with the same updatedAt: exactly one wins.
    const cur = r.body.intent.updatedAt;
    const both = await Promise.all([
      api.patch(`/v1/intents/${i.id}`, { updatedAt: cur, reference: 'w1' }),
      api.patch(`/v1/intents/${i.id}`, { updatedAt: cur, reference: 'w2' }),
    ]);
    expect(both.map((b) => b.status).sort()).toEqual([200, 409]);
    expect(await eventTypes(api, i.id)).toEqual(['intent.created']);
    // A state change moves updatedAt too.
    const g = (await api.get(`/v1/intents/${i.id}`)).body.intent;
    await api.post(`/v1/intents/${i.id}/detected`);
    expectError(await api.patch(`/v1/intents/${i.id}`, { updatedAt: g.updatedAt, reference: 'x' }), 409, 'intent.stale_update');
  });

  it('validates its fields', async () => {
    const i = await create();
    expectError(await api.patch(`/v1/intents/${i.id}`, { reference: 'x' }), 400, 'request.invalid_param', 'updatedAt');
    expectError(await api.patch(`/v1/intents/${i.id}`, { updatedAt: 'yesterday' }), 400, 'request.invalid_param', 'updatedAt');
    expectError(await api.patch(`/v1/intents/${i.id}`, { updatedAt: i.updatedAt, reference: 'r'.repeat(257) }), 400, 'request.invalid_param', 'reference');
    expectError(await api.patch(`/v1/intents/${i.id}`, { updatedAt: i.updatedAt, metadata: { k: 'v'.repeat(501) } }), 400, 'request.invalid_param', 'metadata.k');
  });
});

describe('cancel, detected, refund', () => {
  it('cancel only from created; any other state is 409 intent.invalid_state with details', async () => {
    const i = await create();
    const r = await api.post(`/v1/intents/${i.id}/cancel`);
    expect(r.status).toBe(200);
    expect(r.body.intent.state).toBe('cancelled');
    expect(await eventTypes(api, i.id)).toEqual(['intent.created', 'intent.cancelled']);
    for (const state of ['cancelled', 'confirmed', 'finalized', 'failed', 'expired']) {
      const x = state === 'cancelled' ? r.body.intent : await inState(state);
      const e = expectError(await api.post(`/v1/intents/${x.id}/cancel`), 409, 'intent.invalid_state');
      expect(e.details).toEqual({ intent_id: x.id, current_state: state });
      expect((await api.get(`/v1/intents/${x.id}`)).body.intent.state).toBe(state);
    }
    const sol = await createSol();
    expect((await simulate(sol.id, 'confirmed')).status).toBe(200);
    expect(await eventTypes(api, sol.id)).toEqual(['intent.created', 'intent.confirmed']);
  });

  it('detected: the first call sets detectedAt with an event, the second changes nothing; terminal states 409', async () => {
    for (const state of ['created', 'confirmed', 'finalized']) {
      const i = await inState(state);
      const before = await eventTypes(api, i.id);
      const a = await api.post(`/v1/intents/${i.id}/detected`);
      expect(a.status).toBe(200);
      expect(a.body.intent.detectedAt).not.toBeNull();
      expect(a.body.intent.state).toBe(state);
      const b = await api.post(`/v1/intents/${i.id}/detected`);
      expect(b.status).toBe(200);
      expect(b.body.intent).toEqual(a.body.intent);
      expect(await eventTypes(api, i.id)).toEqual([...before, 'intent.detected']);
    }
    for (const state of ['failed', 'expired', 'cancelled']) {
      const i = await inState(state);
      const e = expectError(await api.post(`/v1/intents/${i.id}/detected`), 409, 'intent.invalid_state');
      expect(e.details).toEqual({ intent_id: i.id, current_state: state });
    }
  });

  it('refund: linked both ways, swapped parties, its own intent.created; only confirmed/finalized; once', async () => {
    for (const state of ['confirmed', 'finalized']) {
      const o = await inState(state);
      const r = await api.post(`/v1/intents/${o.id}/refund`);
      expect(r.status).toBe(200);
      const refund = r.body.intent;
      expect(refund).toMatchObject({
        state: 'created', refundOf: o.id, chain: o.chain, token: o.token, amount: o.amount, amountBaseUnits: o.amountBaseUnits,
        requestor: o.fulfiller, fulfiller: o.requestor, livemode: false, refundedBy: null,
      });
      expect(refund.id).not.toBe(o.id);
      const orig = (await api.get(`/v1/intents/${o.id}`)).body.intent;
      expect(orig.refundedBy).toBe(refund.id);
      expect(orig.state).toBe(state);
      expect(await eventTypes(api, refund.id)).toEqual(['intent.created']);
      const e = expectError(await api.post(`/v1/intents/${o.id}/refund`), 409, 'intent.already_refunded');
      expect(e.details.intent_id).toBe(o.id);
      // The refund runs its own lifecycle.
      expect((await simulate(refund.id, 'confirmed')).body.intent.state).toBe('confirmed');
    }
    for (const state of ['created', 'failed', 'expired', 'cancelled']) {
      const i = await inState(state);
      const e = expectError(await api.post(`/v1/intents/${i.id}/refund`), 409, 'intent.invalid_state');
      expect(e.details).toEqual({ intent_id: i.id, current_state: state });
    }
  });
});

describe('simulate', () => {
  const SOURCES: Record<string, string[]> = {
    confirmed: ['created', 'dropped', 'pending'],
    finalized: ['confirmed'],
    failed: ['created', 'dropped', 'pending'],
    expired: ['created', 'dropped', 'pending'],
  };
  const EMITS: Record<string, string> = { confirmed: 'intent.confirmed', finalized: 'intent.finalized', failed: 'intent.failed', expired: 'intent.expired' };
  const reachable = ['created', 'confirmed', 'finalized', 'failed', 'expired', 'cancelled'];

  for (const target of ['confirmed', 'finalized', 'failed', 'expired']) {
    it(`${target}: allowed from ${SOURCES[target]!.join(', ')} only`, async () => {
      for (const from of reachable) {
        const i = await inState(from);
        const before = await eventTypes(api, i.id);
        const r = await simulate(i.id, target);
        if (SOURCES[target]!.includes(from)) {
          expect(r.status, `${from} -> ${target}`).toBe(200);
          expect(r.body.intent.state).toBe(target);
          expect(await eventTypes(api, i.id)).toEqual([...before, EMITS[target]]);
          const events = await eventsOf(api, i.id);
          expect(events.at(-1)!.data.intent).toEqual(r.body.intent);
          if (target === 'confirmed') expect(r.body.intent.confirmedAt).not.toBeNull();
          if (target === 'finalized') expect(r.body.intent.finalizedAt).not.toBeNull();
          if (target === 'failed') expect(r.body.intent.failureReason).toBe('revert');
        } else {
          const e = expectError(r, 409, 'intent.invalid_state');
          expect(e.details).toEqual({ intent_id: i.id, current_state: from });
          expect(await eventTypes(api, i.id)).toEqual(before);
        }
      }
    });
  }

  it('failed carries failureReason from the body; bad targets and reasons are 400', async () => {
    const i = await create();
    const r = await simulate(i.id, 'failed', { failureReason: 'insufficient_balance' });
    expect(r.body.intent).toMatchObject({ state: 'failed', failureReason: 'insufficient_balance' });
    const j = await create();
    expectError(await simulate(j.id, 'failed', { failureReason: 'bogus' }), 400, 'request.invalid_param', 'failureReason');
    expectError(await simulate(j.id, 'pending'), 400, 'request.invalid_param', 'targetState');
    expectError(await api.post(`/v1/test/intents/${j.id}/simulate`, {}), 400, 'request.invalid_param', 'targetState');
  });

  it('dropped: EVM chains are 422 simulate.unsupported_for_chain; Solana needs pending (409 from created)', async () => {
    const evm = await create();
    const e = expectError(await simulate(evm.id, 'dropped'), 422, 'simulate.unsupported_for_chain', 'targetState');
    expect(e.details.chain).toBe(BASE_SEPOLIA);
    const sol = await createSol();
    const x = expectError(await simulate(sol.id, 'dropped'), 409, 'intent.invalid_state');
    expect(x.details).toEqual({ intent_id: sol.id, current_state: 'created' });
    expect((await api.get(`/v1/intents/${sol.id}`)).body.intent.state).toBe('created');
  });

  it('build on confirmed or finalized is 409 intent.already_fulfilled; on other ended states 409', async () => {
    for (const state of ['confirmed', 'finalized']) {
      const i = await inState(state);
      const e = expectError(await api.post(`/v1/intents/${i.id}/build`, { fulfiller: EVM_ADDR2 }), 409, 'intent.already_fulfilled');
      expect(e.details).toEqual({ intent_id: i.id, current_state: state });
    }
    for (const state of ['failed', 'cancelled']) {
      const i = await inState(state);
      const e = expectError(await api.post(`/v1/intents/${i.id}/build`, {}), 409, 'intent.invalid_state');
      expect(e.details).toEqual({ intent_id: i.id, current_state: state });
    }
    const ex = await inState('expired');
    expectError(await api.post(`/v1/intents/${ex.id}/build`, {}), 409, 'intent.expired');
  });

  it('submit on an expired intent is 409 intent.expired; on a cancelled one 409 invalid_state; on confirmed already_fulfilled', async () => {
    const ex = await inState('expired');
    const e = expectError(await api.post(`/v1/intents/${ex.id}/submit`, { signedTransaction: 'AAAA' }), 409, 'intent.expired');
    expect(e.details).toMatchObject({ intent_id: ex.id, current_state: 'expired' });
    const c = await inState('cancelled');
    expectError(await api.post(`/v1/intents/${c.id}/submit`, { signedTransaction: 'AAAA' }), 409, 'intent.invalid_state');
    const f = await inState('confirmed');
    expectError(await api.post(`/v1/intents/${f.id}/submit`, { signedTransaction: 'AAAA' }), 409, 'intent.already_fulfilled');
    // A body that is not base64 at all names its param.
    const i = await create();
    expectError(await api.post(`/v1/intents/${i.id}/submit`, { signedTransaction: '***' }), 400, 'request.invalid_param', 'signedTransaction');
    expectError(await api.post(`/v1/intents/${i.id}/submit`, {}), 400, 'request.invalid_param', 'txSignature');
  });
});

describe('webhooks and events', () => {
  it('200 delivery list, 202 retry (a new delivery of the same event), 404 for unknown deliveries', async () => {
    const a = await s.account({ plan: 'pro' });
    const wapi = s.api(a.key);
    await setEndpoint(webhookServices(s.repos, s.config), { accountId: a.accountId, mode: 'test' }, { url: 'http://localhost:9/hook' });
    const i = await create({}, wapi);
    const list = await wapi.get('/v1/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.deliveries).toHaveLength(1);
    const d = list.body.deliveries[0];
    const [ev] = await eventsOf(wapi, i.id);
    expect(d.eventId).toBe(ev!.eventId);
    const r = await wapi.post(`/v1/webhooks/${d.id}/retry`);
    expect(r.status).toBe(202);
    expect(r.body.delivery.eventId).toBe(d.eventId);
    expect(r.body.delivery.id).not.toBe(d.id);
    expect((await wapi.get('/v1/webhooks')).body.deliveries).toHaveLength(2);
    expectError(await wapi.post('/v1/webhooks/whd_nope/retry'), 404, 'webhook.not_found');
    // Another account cannot see or retry it.
    expectError(await api.post(`/v1/webhooks/${d.id}/retry`), 404, 'webhook.not_found');
    // No endpoint for this account: intents still work, no delivery rows.
    expect((await api.get('/v1/webhooks')).body.deliveries).toEqual([]);
  });

  it('events: newest first with starting_after and hasMore; GET one; 404 event.not_found', async () => {
    const own = s.api((await s.account()).key);
    const i = await create({}, own);
    await own.post(`/v1/intents/${i.id}/detected`);
    await own.post(`/v1/intents/${i.id}/cancel`);
    const all = await own.get('/v1/events');
    expect(all.body.events.map((e: any) => e.type)).toEqual(['intent.cancelled', 'intent.detected', 'intent.created']);
    expect(all.body.hasMore).toBe(false);
    const p1 = await own.get('/v1/events?limit=1');
    expect(p1.body.hasMore).toBe(true);
    const p2 = await own.get(`/v1/events?limit=5&starting_after=${p1.body.events[0].eventId}`);
    expect(p2.body.events.map((e: any) => e.type)).toEqual(['intent.detected', 'intent.created']);
    const one = await own.get(`/v1/events/${p1.body.events[0].eventId}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(p1.body.events[0]);
    expect(one.body.data.intent.state).toBe('cancelled');
    expect(p2.body.events[1].data.intent.state).toBe('created');
    expectError(await own.get('/v1/events/evt_nope'), 404, 'event.not_found');
    expectError(await api.get(`/v1/events/${one.body.eventId}`), 404, 'event.not_found');
  });
});
