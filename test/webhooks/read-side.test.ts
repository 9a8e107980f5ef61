// The API's read side: delivery list (order, limit, scoping), replay (retryDelivery), and the
// events list/get with starting_after pagination, all scoped to account and mode.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors';
import { createDispatcher } from '../../src/webhooks/dispatcher';
import { getEvent } from '../../src/webhooks/get-event';
import { listDeliveries } from '../../src/webhooks/list-deliveries';
import { listEvents } from '../../src/webhooks/list-events';
import { retryDelivery } from '../../src/webhooks/retry-delivery';
import { setEndpoint } from '../../src/webhooks/set-endpoint';
import { startReceiver, type Receiver } from '../support/receiver';
import { createAccount, deliveryRow, dispatchDeps, emit, tempDb, testConfig, until, services } from './factory';

const config = testConfig({ retryScheduleSeconds: [] });
let db: ReturnType<typeof tempDb>;
let rx: Receiver;
let a: string;
let b: string;
beforeEach(async () => {
  db = tempDb();
  rx = startReceiver();
  a = createAccount(db);
  b = createAccount(db);
  for (const acct of [a, b]) for (const mode of ['test', 'live'] as const)
    await setEndpoint(services(db, { ...config, webhooks: { ...config.webhooks, allowPrivateUrls: true } }), { accountId: acct, mode }, {
      url: rx.url(`/${acct}/${mode}`).replace('http:', mode === 'live' ? 'https:' : 'http:'),
    });
});
afterEach(async () => {
  db.dispose();
  await rx.close();
});

const isoMs = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const code = async (f: () => unknown): Promise<string> => {
  try {
    await f();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return (e as AppError).code;
  }
  throw new Error('expected an AppError');
};

describe('listDeliveries', () => {
  it('lists newest first, honours limit, and shows only the account and mode asked for', async () => {
    const mine = Array.from({ length: 5 }, () => emit(db, { accountId: a, mode: 'test' }));
    emit(db, { accountId: a, mode: 'live' });
    emit(db, { accountId: b, mode: 'test' });
    const list = (await listDeliveries(services(db), { accountId: a, mode: 'test' }, { limit: 20 })).deliveries;
    expect(list.map((d) => d.id)).toEqual(mine.map((m) => m.deliveryId).reverse());
    expect(list.map((d) => d.eventId)).toEqual(mine.map((m) => m.eventId).reverse());
    expect((await listDeliveries(services(db), { accountId: a, mode: 'test' }, { limit: 2 })).deliveries.map((d) => d.id)).toEqual([mine[4]!.deliveryId, mine[3]!.deliveryId]);
    expect((await listDeliveries(services(db), { accountId: a, mode: 'live' }, { limit: 20 })).deliveries).toHaveLength(1);
    expect((await listDeliveries(services(db), { accountId: b, mode: 'live' }, { limit: 20 })).deliveries).toHaveLength(0);
    // Pages: starting_after a delivery id, hasMore while older ones remain.
    const p1 = (await listDeliveries(services(db), { accountId: a, mode: 'test' }, { limit: 3 }));
    expect(p1.hasMore).toBe(true);
    const p2 = (await listDeliveries(services(db), { accountId: a, mode: 'test' }, { limit: 3, startingAfter: p1.deliveries.at(-1)!.id }));
    expect(p2.hasMore).toBe(false);
    expect([...p1.deliveries, ...p2.deliveries].map((d) => d.id)).toEqual(mine.map((m) => m.deliveryId).reverse());
    expect(await code(async () => (await listDeliveries(services(db), { accountId: b, mode: 'test' }, { limit: 3, startingAfter: mine[0]!.deliveryId })))).toBe('request.invalid_param');
    const d = list[0]!;
    expect(d).toEqual({
      id: mine[4]!.deliveryId, eventId: mine[4]!.eventId, url: rx.url(`/${a}/test`), status: 'pending', responseStatus: null,
      attemptCount: 0, lastAttemptedAt: null, nextAttemptAt: expect.stringMatching(isoMs), lastError: null,
      deliveredAt: null, failedAt: null, createdAt: expect.stringMatching(isoMs),
    });
  });

  it('shows the outcome fields once the dispatcher has delivered or failed', async () => {
    rx.setHandler((r) => ({ status: r.body.includes('intent.failed') ? 500 : 200 }));
    const ok = emit(db, { accountId: a, mode: 'test' });
    const bad = emit(db, { accountId: a, mode: 'test', type: 'intent.failed' });
    const dispatcher = createDispatcher(dispatchDeps(db, config));
    dispatcher.start();
    await until(() => [deliveryRow(db, ok.deliveryId), deliveryRow(db, bad.deliveryId)], (rs) => rs.every((r) => r.status !== 'pending'));
    await dispatcher.stop();
    const [failed, delivered] = (await listDeliveries(services(db), { accountId: a, mode: 'test' }, { limit: 20 })).deliveries;
    expect(delivered).toMatchObject({ status: 'delivered', responseStatus: 200, attemptCount: 1, failedAt: null, nextAttemptAt: null });
    expect(delivered!.deliveredAt).toMatch(isoMs);
    expect(delivered!.lastAttemptedAt).toBe(delivered!.deliveredAt);
    expect(failed).toMatchObject({ status: 'failed', responseStatus: 500, attemptCount: 1, deliveredAt: null, nextAttemptAt: null });
    expect(failed!.failedAt).toMatch(isoMs);
  });
});

describe('retryDelivery', () => {
  it("queues a new delivery of the same event to the current endpoint URL, sent at once, keeping the original", async () => {
    rx.queue({ status: 500 });
    const ev = emit(db, { accountId: a, mode: 'test' });
    const dispatcher = createDispatcher(dispatchDeps(db, config));
    dispatcher.start();
    await until(() => deliveryRow(db, ev.deliveryId), (r) => r.status === 'failed');
    await setEndpoint(services(db, config), { accountId: a, mode: 'test' }, { url: rx.url('/moved') });

    const replay = (await retryDelivery(services(db), { accountId: a, mode: 'test' }, { id: ev.deliveryId }));
    expect(replay.delivery).toMatchObject({ eventId: ev.eventId, url: rx.url('/moved'), status: 'pending', attemptCount: 0 });
    expect(replay.delivery.id).toMatch(/^whd_[0-9A-Za-z]{24}$/);
    expect(replay.delivery.id).not.toBe(ev.deliveryId);
    dispatcher.wake();
    const [req] = await rx.waitFor(1, { prefix: '/moved' });
    expect(req!.body).toBe(ev.payload);
    expect(req!.headers['webhook-id']).toBe(ev.eventId);
    await until(() => deliveryRow(db, replay.delivery.id), (r) => r.status === 'delivered');
    await dispatcher.stop();
    expect(deliveryRow(db, ev.deliveryId)).toMatchObject({ status: 'failed', attemptCount: 1 });
    expect((await listDeliveries(services(db), { accountId: a, mode: 'test' }, { limit: 20 })).deliveries.map((d) => d.id)).toEqual([replay.delivery.id, ev.deliveryId]);
  });

  it("answers webhook.not_found for another account's or mode's delivery, or an unknown id", async () => {
    const ev = emit(db, { accountId: a, mode: 'test' });
    expect(await code(async () => (await retryDelivery(services(db), { accountId: b, mode: 'test' }, { id: ev.deliveryId })))).toBe('webhook.not_found');
    expect(await code(async () => (await retryDelivery(services(db), { accountId: a, mode: 'live' }, { id: ev.deliveryId })))).toBe('webhook.not_found');
    expect(await code(async () => (await retryDelivery(services(db), { accountId: a, mode: 'test' }, { id: 'whd_nope' })))).toBe('webhook.not_found');
    expect((await listDeliveries(services(db), { accountId: a, mode: 'test' }, { limit: 20 })).deliveries).toHaveLength(1);
  });

  it('refuses with webhook.invalid_endpoint when the mode no longer has an endpoint', async () => {
    const ev = emit(db, { accountId: a, mode: 'test' });
    db.sqlite.query('DELETE FROM webhook_endpoints WHERE account_id = ? AND mode = ?').run(a, 'test');
    expect(await code(async () => (await retryDelivery(services(db), { accountId: a, mode: 'test' }, { id: ev.deliveryId })))).toBe('webhook.no_endpoint');
    expect((await listDeliveries(services(db), { accountId: a, mode: 'test' }, { limit: 20 })).deliveries).toHaveLength(1);
  });
});

describe('events', () => {
  it('lists envelopes newest first and pages with starting_after / hasMore', async () => {
    const evs = Array.from({ length: 7 }, () => emit(db, { accountId: a, mode: 'test' }));
    emit(db, { accountId: b, mode: 'test' });
    emit(db, { accountId: a, mode: 'live' });
    const newest = evs.map((e) => e.eventId).reverse();
    const p1 = (await listEvents(services(db), { accountId: a, mode: 'test' }, { limit: 3 }));
    expect(p1.events.map((e) => e.eventId)).toEqual(newest.slice(0, 3));
    expect(p1.hasMore).toBe(true);
    expect(p1.events[0]).toEqual(evs[6]!.envelope);
    const p2 = (await listEvents(services(db), { accountId: a, mode: 'test' }, { limit: 3, startingAfter: p1.events[2]!.eventId }));
    expect(p2.events.map((e) => e.eventId)).toEqual(newest.slice(3, 6));
    expect(p2.hasMore).toBe(true);
    const p3 = (await listEvents(services(db), { accountId: a, mode: 'test' }, { limit: 3, startingAfter: p2.events[2]!.eventId }));
    expect(p3).toEqual({ events: [evs[0]!.envelope], hasMore: false });
    expect((await listEvents(services(db), { accountId: a, mode: 'test' }, { limit: 7 })).hasMore).toBe(false);
    expect((await listEvents(services(db), { accountId: a, mode: 'live' }, { limit: 100 })).events).toHaveLength(1);
  });

  it('refuses a starting_after that is not an event of this account and mode', async () => {
    const theirs = emit(db, { accountId: b, mode: 'test' });
    const mineLive = emit(db, { accountId: a, mode: 'live' });
    for (const id of [theirs.eventId, mineLive.eventId, 'evt_unknown']) {
      try {
        (await listEvents(services(db), { accountId: a, mode: 'test' }, { limit: 10, startingAfter: id }));
        throw new Error('expected a refusal');
      } catch (e) {
        expect(e).toMatchObject({ code: 'request.invalid_param', param: 'starting_after' });
      }
    }
  });

  it('gets one envelope, and answers event.not_found across accounts and modes', async () => {
    const ev = emit(db, { accountId: a, mode: 'test', type: 'intent.confirmed' });
    expect((await getEvent(services(db), { accountId: a, mode: 'test' }, { id: ev.eventId }))).toEqual(ev.envelope);
    expect(await code(async () => (await getEvent(services(db), { accountId: b, mode: 'test' }, { id: ev.eventId })))).toBe('event.not_found');
    expect(await code(async () => (await getEvent(services(db), { accountId: a, mode: 'live' }, { id: ev.eventId })))).toBe('event.not_found');
    expect(await code(async () => (await getEvent(services(db), { accountId: a, mode: 'test' }, { id: 'evt_nope' })))).toBe('event.not_found');
  });
});
