// The dispatcher against a real loopback receiver: signatures, retries to failedAt, success
// after failures, redirects, timeouts, rotation, send-time SSRF refusal, fairness, lease reclaim.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.types';
import type { DispatchStore } from '../../src/store/webhook-dispatch';
import { createDispatcher, type Dispatcher, type DispatcherDeps } from '../../src/webhooks/dispatcher';
import { rotateSecret } from '../../src/webhooks/rotate-secret';
import { setEndpoint } from '../../src/webhooks/set-endpoint';
import type { Lookup } from '../../src/webhooks/url-policy';
import { startReceiver, type ReceivedRequest, type Receiver } from '../support/receiver';
import { createAccount, deliveryRow, dispatchDeps, emit, insertDelivery, insertEvent, putEndpoint, tempDb, testConfig, until, services } from './factory';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** `wrap` sees the dispatcher's store calls (the leases it holds). */
function world(webhooks: Partial<Config['webhooks']> = {}, deps: Partial<DispatcherDeps> = {}, wrap = (d: DispatchStore) => d) {
  const db = tempDb();
  const rx = startReceiver();
  const config = testConfig(webhooks);
  const base = dispatchDeps(db, config);
  const dispatcher = createDispatcher({ ...base, dispatch: wrap(base.dispatch), ...deps });
  cleanups.push(() => db.dispose(), () => rx.close(), () => dispatcher.stop());
  return { db, rx, config, dispatcher };
}

function receiver(opts?: Parameters<typeof startReceiver>[0]): Receiver {
  const rx = startReceiver(opts);
  cleanups.push(() => rx.close());
  return rx;
}

/** X-PF-Signature checked by hand, as the seed tells receivers to: hex HMAC, timing-safe. */
function pfSignatureValid(req: ReceivedRequest, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(req.body).digest();
  const got = Buffer.from(req.headers['x-pf-signature'] ?? '', 'hex');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

describe('dispatcher', () => {
  it('POSTs the exact envelope with X-PF-Signature and Standard Webhooks headers that verify', async () => {
    const { db, rx, config, dispatcher } = world();
    const acct = createAccount(db);
    const { secret } = await setEndpoint(services(db, config), { accountId: acct, mode: 'test' }, { url: rx.url('/hooks') });
    const ev = emit(db, { accountId: acct, mode: 'test', type: 'intent.pending' });
    dispatcher.start();
    const [req] = await rx.waitFor(1);
    const row = await until(() => deliveryRow(db, ev.deliveryId), (r) => r.status === 'delivered');

    expect(req!.method).toBe('POST');
    expect(req!.path).toBe('/hooks');
    expect(req!.body).toBe(ev.payload);
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['x-pf-event-id']).toBe(ev.eventId);
    expect(req!.headers['webhook-id']).toBe(ev.eventId);
    expect(Math.abs(Number(req!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(pfSignatureValid(req!, secret)).toBe(true);
    expect(pfSignatureValid({ ...req!, body: req!.body.replace('intent.pending', 'intent.confirmed') }, secret)).toBe(false);
    expect(new Webhook(secret).verify(req!.body, req!.headers)).toEqual(ev.envelope);
    expect(() => new Webhook(secret).verify(req!.body + ' ', req!.headers)).toThrow();

    expect(row).toMatchObject({ status: 'delivered', attemptCount: 1, responseStatus: 200, lastError: null, failedAt: null, leaseUntil: null });
    expect(row.deliveredAt).toBeGreaterThan(0);
    expect(row.lastAttemptedAt).toBe(row.deliveredAt);
    // The dispatcher relaxes fsync for its own commits only: transitions stay synchronous=FULL.
    expect(db.sqlite.query('PRAGMA synchronous').get()).toEqual({ synchronous: 2 });
  });

  it('retries on the configured schedule and sets failedAt after the last attempt (length + 1 attempts)', async () => {
    const schedule = [0.05, 0.05, 0.1, 0.05];
    const { db, rx, config, dispatcher } = world({ retryScheduleSeconds: schedule });
    rx.setHandler(() => ({ status: 500, body: 'boom' }));
    const acct = createAccount(db);
    const { secret } = await setEndpoint(services(db, config), { accountId: acct, mode: 'test' }, { url: rx.url() });
    const ev = emit(db, { accountId: acct, mode: 'test' });
    dispatcher.start();
    const row = await until(() => deliveryRow(db, ev.deliveryId), (r) => r.status === 'failed');

    expect(row).toMatchObject({ attemptCount: schedule.length + 1, responseStatus: 500, deliveredAt: null, lastError: 'HTTP 500: boom' });
    expect(row.failedAt).toBe(row.lastAttemptedAt);
    expect(rx.requests).toHaveLength(schedule.length + 1);
    for (const r of rx.requests) {
      expect(r.headers['webhook-id']).toBe(ev.eventId); // stable across retries: receivers dedupe on it
      expect(r.body).toBe(ev.payload);
      expect(pfSignatureValid(r, secret)).toBe(true);
      expect(() => new Webhook(secret).verify(r.body, r.headers)).not.toThrow();
    }
    // Never earlier than the schedule minus jitter (10%).
    rx.requests.slice(1).forEach((r, i) => {
      expect(r.receivedAt - rx.requests[i]!.receivedAt).toBeGreaterThanOrEqual(schedule[i]! * 1000 * 0.9 - 5);
    });
    await Bun.sleep(150);
    expect(rx.requests).toHaveLength(schedule.length + 1); // nothing after failedAt
  });

  it('delivers after some failures (503, 429, 400)', async () => {
    const { db, rx, config, dispatcher } = world({ retryScheduleSeconds: [0.02, 0.02, 0.02, 0.02] });
    rx.queue({ status: 503 }, { status: 429 }, { status: 400 });
    const acct = createAccount(db);
    await setEndpoint(services(db, config), { accountId: acct, mode: 'test' }, { url: rx.url() });
    const ev = emit(db, { accountId: acct, mode: 'test' });
    dispatcher.start();
    const row = await until(() => deliveryRow(db, ev.deliveryId), (r) => r.status === 'delivered');
    expect(row).toMatchObject({ attemptCount: 4, responseStatus: 200, lastError: null, failedAt: null });
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual(Array(4).fill(ev.eventId));
  });

  it('accepts any 2xx as success', async () => {
    const { db, rx, config, dispatcher } = world();
    rx.queue({ status: 204, body: '' });
    const acct = createAccount(db);
    await setEndpoint(services(db, config), { accountId: acct, mode: 'test' }, { url: rx.url() });
    const ev = emit(db, { accountId: acct, mode: 'test' });
    dispatcher.start();
    const row = await until(() => deliveryRow(db, ev.deliveryId), (r) => r.status !== 'pending');
    expect(row).toMatchObject({ status: 'delivered', responseStatus: 204, attemptCount: 1 });
  });

  it('never follows a redirect: a 3xx is a failed attempt', async () => {
    const { db, rx, config, dispatcher } = world({ retryScheduleSeconds: [] });
    rx.setHandler((r) => (r.path === '/hooks' ? { status: 307, headers: { Location: rx.url('/elsewhere') } } : { status: 200 }));
    const acct = createAccount(db);
    await setEndpoint(services(db, config), { accountId: acct, mode: 'test' }, { url: rx.url('/hooks') });
    const ev = emit(db, { accountId: acct, mode: 'test' });
    dispatcher.start();
    const row = await until(() => deliveryRow(db, ev.deliveryId), (r) => r.status !== 'pending');
    expect(row).toMatchObject({ status: 'failed', attemptCount: 1, responseStatus: 307 });
    expect(row.lastError).toContain('redirect not followed');
    expect(rx.on('/elsewhere')).toHaveLength(0);
  });

  it('a receiver slower than timeoutMs fails the attempt with no status; the retry succeeds', async () => {
    const { db, rx, config, dispatcher } = world({ timeoutMs: 200, retryScheduleSeconds: [0.02] });
    rx.queue({ status: 200, delayMs: 1500 }, { status: 200 });
    const acct = createAccount(db);
    await setEndpoint(services(db, config), { accountId: acct, mode: 'test' }, { url: rx.url() });
    const ev = emit(db, { accountId: acct, mode: 'test' });
    dispatcher.start();
    const after1 = await until(() => deliveryRow(db, ev.deliveryId), (r) => r.attemptCount >= 1);
    expect(after1.responseStatus).toBeNull();
    expect(after1.lastError).toBe('timeout after 200 ms');
    const row = await until(() => deliveryRow(db, ev.deliveryId), (r) => r.status !== 'pending');
    expect(row).toMatchObject({ status: 'delivered', attemptCount: 2, responseStatus: 200, lastError: null });
  });

  it('after a rotation signs with both secrets during the overlap; X-PF-Signature uses the new one; retries pick it up', async () => {
    const { db, rx, config, dispatcher } = world({ retryScheduleSeconds: [0.3] });
    const acct = createAccount(db);
    const { secret: oldSecret } = await setEndpoint(services(db, config), { accountId: acct, mode: 'test' }, { url: rx.url() });
    // First attempt fails while only the old secret exists; the retry comes after the rotation.
    let rotated = '';
    rx.queue({ status: 500 });
    const ev = emit(db, { accountId: acct, mode: 'test' });
    dispatcher.start();
    await rx.waitFor(1);
    rotated = (await rotateSecret(services(db, config), { accountId: acct, mode: 'test' })).secret;
    const [first, second] = await rx.waitFor(2);

    expect(first!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(pfSignatureValid(first!, oldSecret)).toBe(true);

    expect(second!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(rotated).verify(second!.body, second!.headers)).toEqual(ev.envelope);
    expect(new Webhook(oldSecret).verify(second!.body, second!.headers)).toEqual(ev.envelope);
    expect(pfSignatureValid(second!, rotated)).toBe(true);
    expect(pfSignatureValid(second!, oldSecret)).toBe(false);
    await until(() => deliveryRow(db, ev.deliveryId), (r) => r.status === 'delivered');

    // Once the overlap has ended, only the new secret signs.
    db.sqlite.query('UPDATE webhook_endpoints SET previous_secret_expires_at = ?').run(Date.now() - 1);
    emit(db, { accountId: acct, mode: 'test' });
    dispatcher.wake();
    const [, , third] = await rx.waitFor(3);
    expect(third!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(() => new Webhook(oldSecret).verify(third!.body, third!.headers)).toThrow();
    expect(() => new Webhook(rotated).verify(third!.body, third!.headers)).not.toThrow();
  });

  it('refuses at send time a live URL that resolves to loopback or a private address (DNS rebinding)', async () => {
    let answer = ['93.184.215.14'];
    const lookup: Lookup = async () => answer;
    const { db, rx, config, dispatcher } = world({ retryScheduleSeconds: [] }, { lookup });
    const acct = createAccount(db);
    // Passed the check at set-endpoint time (public answer) ...
    await setEndpoint(services(db, config, { lookup }), { accountId: acct, mode: 'live' }, { url: `https://rebind.example.com:${rx.port}/hooks` });
    // ... then the name is rebound to loopback before the send.
    answer = ['127.0.0.1'];
    const rebound = emit(db, { accountId: acct, mode: 'live' });
    // Rows written directly, never vetted: loopback by name, metadata by literal, http in live mode.
    const others = [`https://localhost:${rx.port}/hooks`, 'https://169.254.169.254/latest/meta-data', rx.url('/hooks')].map((url) => {
      const ev = insertEvent(db, { accountId: acct, mode: 'live' });
      return insertDelivery(db, { eventId: ev.eventId, accountId: acct, mode: 'live', url });
    });
    dispatcher.start();
    for (const id of [rebound.deliveryId, ...others]) {
      const row = await until(() => deliveryRow(db, id), (r) => r.status !== 'pending');
      expect(row).toMatchObject({ status: 'failed', responseStatus: null, attemptCount: 1 });
      expect(row.lastError).toMatch(/^refused: /);
    }
    expect(rx.requests).toHaveLength(0);
  });

  it('connects to the address it checked, keeping the host name for Host and TLS (https, pinned)', async () => {
    const fixtures = join(import.meta.dirname, 'fixtures');
    const cert = readFileSync(join(fixtures, 'hooks.example.test.crt'), 'utf8');
    const tlsRx = receiver({ tls: { cert, key: readFileSync(join(fixtures, 'hooks.example.test.key'), 'utf8') } });
    const looked: string[] = [];
    const lookup: Lookup = async (h) => (looked.push(h), h === 'hooks.example.test' ? ['127.0.0.1'] : []);
    // Trust the test CA; everything else about the request is the dispatcher's.
    const trusting: DispatcherDeps['fetch'] = (u, init) => fetch(u, { ...init, tls: { ...(init.tls ?? {}), ca: cert } } as RequestInit);
    const { db, config, dispatcher } = world({ allowPrivateUrls: true }, { lookup, fetch: trusting });
    const acct = createAccount(db);
    const url = `https://hooks.example.test:${tlsRx.port}/hooks`;
    const { secret } = await setEndpoint(services(db, config, { lookup }), { accountId: acct, mode: 'live' }, { url });
    const ev = emit(db, { accountId: acct, mode: 'live' });
    dispatcher.start();
    const [req] = await tlsRx.waitFor(1);
    expect(req!.headers.host).toBe(`hooks.example.test:${tlsRx.port}`);
    expect(pfSignatureValid(req!, secret)).toBe(true);
    expect(looked).toContain('hooks.example.test');
    await until(() => deliveryRow(db, ev.deliveryId), (r) => r.status === 'delivered');
  });

  it('a slow receiver only occupies its own slots: other accounts are delivered meanwhile', async () => {
    const { db, rx: fast, config, dispatcher } = world({ concurrency: 4, perEndpointConcurrency: 2, timeoutMs: 30_000 });
    const slow = receiver();
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    slow.setHandler(async () => (await gate, { status: 200 }));
    const a = createAccount(db);
    const b = createAccount(db);
    await setEndpoint(services(db, config), { accountId: a, mode: 'test' }, { url: slow.url() });
    await setEndpoint(services(db, config), { accountId: b, mode: 'test' }, { url: fast.url() });
    // The slow account's backlog is older, so a naive oldest-first claim would take it all.
    const slowIds = Array.from({ length: 12 }, () => emit(db, { accountId: a, mode: 'test' }).deliveryId);
    const fastIds = Array.from({ length: 12 }, () => emit(db, { accountId: b, mode: 'test' }).deliveryId);
    dispatcher.start();
    for (const id of fastIds) await until(() => deliveryRow(db, id), (r) => r.status === 'delivered');
    // All fast deliveries went through while the slow receiver still holds its first requests.
    expect(slow.requests).toHaveLength(2);
    expect(slowIds.map((id) => deliveryRow(db, id).status)).toEqual(Array(12).fill('pending'));
    open();
    for (const id of slowIds) await until(() => deliveryRow(db, id), (r) => r.status === 'delivered');
    expect(slow.requests).toHaveLength(12);
  });

  it("reclaims a row whose lease ran out (a dead dispatcher's) and leaves a live lease alone", async () => {
    const { db, rx, dispatcher } = world();
    const acct = createAccount(db);
    putEndpoint(db, { accountId: acct, mode: 'test', url: rx.url() });
    const dead = insertEvent(db, { accountId: acct, mode: 'test' });
    const deadId = insertDelivery(db, { eventId: dead.eventId, accountId: acct, mode: 'test', url: rx.url('/dead'), leaseUntil: Date.now() - 1 });
    const held = insertEvent(db, { accountId: acct, mode: 'test' });
    const heldId = insertDelivery(db, { eventId: held.eventId, accountId: acct, mode: 'test', url: rx.url('/held'), leaseUntil: Date.now() + 60_000 });
    dispatcher.start();
    await until(() => deliveryRow(db, deadId), (r) => r.status === 'delivered');
    expect(rx.on('/dead')).toHaveLength(1);
    // The held row is owned elsewhere: it stays leased and untouched.
    for (let i = 0; i < 5; i++) dispatcher.wake(), await Bun.sleep(30);
    expect(deliveryRow(db, heldId)).toMatchObject({ status: 'pending', attemptCount: 0 });
    expect(rx.on('/held')).toHaveLength(0);
    // Its owner dies: once the lease runs out, this dispatcher takes over.
    db.sqlite.query('UPDATE webhook_deliveries SET lease_until = ? WHERE id = ?').run(Date.now() - 1, heldId);
    await until(() => deliveryRow(db, heldId), (r) => r.status === 'delivered');
    expect(rx.on('/held')).toHaveLength(1);
  });

  it('a wake finds a row whose due time is before the last look began (written before it, committed after)', async () => {
    // A create's time is taken before its COMMIT; a claim can begin in between (the writer's and
    // the dispatcher's threads, a loaded machine). No poll here: only the wake can find the row.
    let clock = Date.now();
    let claims = 0;
    const count = (d: DispatchStore): DispatchStore => ({ ...d, recordAndClaim: (r, l, c) => (c && claims++, d.recordAndClaim(r, l, c)) });
    const { db, rx, dispatcher } = world({ pollIntervalMs: 600_000 }, { now: () => clock }, count);
    const acct = createAccount(db);
    putEndpoint(db, { accountId: acct, mode: 'test', url: rx.url() });
    const writtenAt = clock - 50;
    dispatcher.start();
    await until(() => claims, (n) => n === 1);
    // Committed only now, after the look that began at `clock`; due at its write's time.
    const ev = insertEvent(db, { accountId: acct, mode: 'test' });
    const id = insertDelivery(db, { eventId: ev.eventId, accountId: acct, mode: 'test', url: rx.url(), nextAttemptAt: writtenAt, createdAt: writtenAt });
    clock += 10;
    dispatcher.wake(writtenAt);
    await until(() => deliveryRow(db, id), (r) => r.status === 'delivered');
    expect(rx.requests).toHaveLength(1);
  });

  it('stop() aborts an in-flight send without charging an attempt; the next dispatcher delivers it', async () => {
    const { db, rx, config, dispatcher } = world();
    rx.queue({ status: 200, delayMs: 5000 });
    const acct = createAccount(db);
    await setEndpoint(services(db, config), { accountId: acct, mode: 'test' }, { url: rx.url() });
    const ev = emit(db, { accountId: acct, mode: 'test' });
    dispatcher.start();
    await rx.waitFor(1);
    await dispatcher.stop();
    expect(deliveryRow(db, ev.deliveryId)).toMatchObject({ status: 'pending', attemptCount: 0, leaseUntil: null });
    const next: Dispatcher = createDispatcher(dispatchDeps(db, config));
    cleanups.push(() => next.stop());
    next.start();
    const row = await until(() => deliveryRow(db, ev.deliveryId), (r) => r.status === 'delivered');
    expect(row.attemptCount).toBe(1);
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([ev.eventId, ev.eventId]);
  });

  it('claims ahead of its free slots but never sends past perEndpoint; stop() gives the rows claimed ahead back unsent', async () => {
    // What the store has handed out and not yet had back (recorded or released): the leases held.
    const holding = new Set<string>();
    const { db, rx, config, dispatcher } = world({ concurrency: 4, perEndpointConcurrency: 2, timeoutMs: 30_000 }, {}, (inner) => ({
      ...inner,
      recordAndClaim: async (records, releases, claim) => {
        const got = await inner.recordAndClaim(records, releases, claim);
        for (const r of [...records, ...releases]) holding.delete(r.id);
        for (const r of got) holding.add(r.id);
        return got;
      },
    }));
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    rx.setHandler(async () => (await gate, { status: 200 }));
    const acct = createAccount(db);
    await setEndpoint(services(db, config), { accountId: acct, mode: 'test' }, { url: rx.url() });
    const ids = Array.from({ length: 10 }, () => emit(db, { accountId: acct, mode: 'test' }).deliveryId);
    dispatcher.start();
    await rx.waitFor(2);
    // Two in flight (perEndpoint) and four more claimed (two perEndpoints' worth ahead), waiting for a slot: never a third request.
    await until(() => holding.size, (n) => n === 6);
    expect(rx.requests).toHaveLength(2);
    const stopping = dispatcher.stop();
    open();
    await stopping;
    expect(holding.size).toBe(0);
    expect(ids.map((id) => deliveryRow(db, id)).filter((r) => r.leaseUntil !== null)).toEqual([]);
    expect(ids.filter((id) => deliveryRow(db, id).attemptCount > 0).length).toBeLessThanOrEqual(2);
  });

  it('writes attempts in batches: records wait together (and a lone one on its own timer), stop() writes those still waiting', async () => {
    const writes: number[] = [];
    const { db, rx, config, dispatcher } = world({}, {}, (inner) => ({
      ...inner,
      recordAndClaim: async (records, releases, claim) => {
        if (records.length > 0) writes.push(records.length);
        return inner.recordAndClaim(records, releases, claim);
      },
    }));
    const acct = createAccount(db);
    await setEndpoint(services(db, config), { accountId: acct, mode: 'test' }, { url: rx.url() });
    // A lone delivery: nothing else runs, its record is written by its own timer.
    const first = emit(db, { accountId: acct, mode: 'test' });
    dispatcher.start();
    await until(() => deliveryRow(db, first.deliveryId), (r) => r.status === 'delivered');
    expect(writes).toEqual([1]);
    // Five more sent; stop() as soon as their attempts are done: what has not been written yet is, by stop.
    const ids = Array.from({ length: 5 }, () => emit(db, { accountId: acct, mode: 'test' }).deliveryId);
    dispatcher.wake();
    await until(() => dispatcher.stats().delivered, (n) => n === 6);
    await dispatcher.stop();
    expect(rx.requests).toHaveLength(6);
    for (const id of ids) expect(deliveryRow(db, id)).toMatchObject({ status: 'delivered', attemptCount: 1 });
    expect(writes.reduce((a, b) => a + b, 0)).toBe(6);
  });
});
