// Pure and SQL-level pieces of the dispatcher: backoff bounds, the fair claim, the lease fence.
import { Database } from 'bun:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { DEFAULT_CONFIG } from '../../src/config.types';
import { MAX_SPAN_MS, nextAttemptAt } from '../../src/webhooks/backoff';
import { createDispatchStore } from '../../src/store/webhook-dispatch';
import { pfSignature, signHeaders, standardSignature } from '../../src/webhooks/sign';
import { Webhook } from 'standardwebhooks';
import { startReceiver, type Receiver } from '../support/receiver';
import { createAccount, deliveryRow, insertDelivery, insertEvent, tempDb } from './factory';

describe('backoff', () => {
  const schedule = DEFAULT_CONFIG.webhooks.retryScheduleSeconds;
  it('waits schedule[n-1] seconds ±10% after the n-th failure, and stops after schedule.length + 1 attempts', () => {
    const t0 = 1_000_000;
    expect(nextAttemptAt(schedule, 1, t0, t0, () => 0.5)).toBe(t0 + 60_000);
    expect(nextAttemptAt(schedule, 1, t0, t0, () => 0)).toBe(t0 + 54_000);
    expect(nextAttemptAt(schedule, 1, t0, t0, () => 1)).toBe(t0 + 66_000);
    expect(nextAttemptAt(schedule, schedule.length, t0, t0, () => 0.5)).toBe(t0 + 86_400_000);
    expect(nextAttemptAt(schedule, schedule.length + 1, t0, t0)).toBeNull();
    expect(nextAttemptAt([], 1, t0, t0)).toBeNull();
    expect(schedule.length + 1).toBe(10);
  });

  it('never places the last attempt later than 72 h after the first, even with maximal jitter', () => {
    const t0 = 5_000;
    let at = t0;
    for (let n = 1; n <= schedule.length; n++) at = nextAttemptAt(schedule, n, at, t0, () => 1)!;
    expect(at - t0).toBeLessThanOrEqual(MAX_SPAN_MS);
    expect(at - t0).toBeGreaterThan(MAX_SPAN_MS - 3_600_000); // the schedule is honoured up to the bound
  });
});

describe('sign', () => {
  let rx: Receiver;
  beforeEach(() => void (rx = startReceiver()));
  afterEach(() => rx.close());
  it('matches the Standard Webhooks reference signer and a hand-made hex HMAC, over the bytes on the wire', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = JSON.stringify({ eventId: 'evt_1', note: 'é ✓' });
    const ts = Math.floor(Date.now() / 1000);
    const headers = signHeaders({ eventId: 'evt_1', body, secrets: [secret], timestampSeconds: ts });
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign('evt_1', new Date(ts * 1000), body));
    expect(standardSignature(secret, 'evt_1', ts, body)).toBe(headers['webhook-signature']);
    expect(pfSignature(secret, body)).toMatch(/^[0-9a-f]{64}$/);
    await fetch(rx.url(), { method: 'POST', body, headers });
    const [req] = await rx.waitFor(1);
    expect(new Webhook(secret).verify(req!.body, req!.headers)).toEqual(JSON.parse(body));
  });

  it('signs every message with its own secret, again and again (keys are prepared once per secret and reused)', () => {
    const a = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const b = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    const hex = (key: string, msg: string) => createHmac('sha256', key).update(msg, 'utf8').digest('hex');
    const std = (key: string, id: string, ts: number, msg: string) =>
      `v1,${createHmac('sha256', Buffer.from(key.slice('whsec_'.length), 'base64')).update(`${id}.${ts}.${msg}`, 'utf8').digest('base64')}`;
    for (let i = 0; i < 3; i++) {
      for (const [key, other] of [[a, b], [b, a]] as const) {
        const body = JSON.stringify({ i, key: key.slice(-4), note: 'é ✓' });
        const h = signHeaders({ eventId: `evt_${i}`, body, secrets: [key, other], timestampSeconds: 1_700_000_000 + i });
        expect(h['X-PF-Signature']).toBe(hex(key, body));
        expect(h['webhook-signature']).toBe(`${std(key, `evt_${i}`, 1_700_000_000 + i, body)} ${std(other, `evt_${i}`, 1_700_000_000 + i, body)}`);
        expect(signHeaders({ eventId: `evt_${i}`, body, secrets: [key], timestampSeconds: 1_700_000_000 + i })['webhook-signature']).toBe(
          new Webhook(key).sign(`evt_${i}`, new Date((1_700_000_000 + i) * 1000), body),
        );
      }
    }
  });
});

describe('claim and record', () => {
  let db: ReturnType<typeof tempDb>;
  let rx: Receiver;
  beforeEach(() => {
    db = tempDb();
    rx = startReceiver();
  });
  afterEach(async () => {
    db.dispose();
    await rx.close();
  });

  function rows(url: string, n: number, acct: string, at = Date.now() - 1000): string[] {
    return Array.from({ length: n }, () => {
      const ev = insertEvent(db, { accountId: acct, mode: 'test' });
      return insertDelivery(db, { eventId: ev.eventId, accountId: acct, mode: 'test', url, nextAttemptAt: at });
    });
  }

  it('claims at most perEndpoint rows per URL, counting those in flight, oldest due first', () => {
    const acct = createAccount(db);
    const now = Date.now();
    rows(rx.url('/a'), 20, acct, now - 5000);
    rows(rx.url('/b'), 3, acct, now - 10);
    rows(rx.url('/c'), 2, acct, now + 60_000); // not due
    const { claim } = createDispatchStore(db);
    const first = claim({ now, leaseUntil: now + 1000, limit: 10, perEndpoint: 4, inFlight: new Map(), deep: true });
    const count = (u: string, rs: Array<{ url: string }>) => rs.filter((r) => r.url === rx.url(u)).length;
    expect([count('/a', first), count('/b', first), count('/c', first)]).toEqual([4, 3, 0]);
    expect(first.every((r) => r.leaseUntil === now + 1000)).toBe(true);
    // Claimed rows are leased: not claimed again, and /a is saturated by its in-flight sends.
    expect(claim({ now, leaseUntil: now + 1000, limit: 10, perEndpoint: 4, inFlight: new Map([[rx.url('/a'), 4]]), deep: true })).toEqual([]);
    const more = claim({ now, leaseUntil: now + 1000, limit: 10, perEndpoint: 4, inFlight: new Map([[rx.url('/a'), 1]]), deep: true });
    expect(count('/a', more)).toBe(3);
    // When the leases run out, the rows can be claimed again.
    expect(claim({ now: now + 1001, leaseUntil: now + 2000, limit: 100, perEndpoint: 100, inFlight: new Map(), deep: true })).toHaveLength(23);
  });

  it('a deep claim looks past a URL that filled up for rows of other URLs behind its backlog; a shallow one does not', () => {
    const acct = createAccount(db);
    const now = Date.now();
    rows(rx.url('/a'), 100, acct, now - 5000);
    rows(rx.url('/b'), 3, acct, now - 10);
    const { claim } = createDispatchStore(db);
    const args = { now, leaseUntil: now + 1000, limit: 10, perEndpoint: 4, inFlight: new Map<string, number>() };
    const shallow = claim({ ...args, deep: false });
    expect(shallow.map((r) => r.url)).toEqual(Array(4).fill(rx.url('/a')));
    const deep = claim({ ...args, inFlight: new Map([[rx.url('/a'), 4]]), deep: true, now: now + 1, leaseUntil: now + 2000 });
    expect(deep.map((r) => r.url)).toEqual(Array(3).fill(rx.url('/b')));
  });

  it("a shallow claim with a URL at its limit stays a window of the oldest rows: it does not walk that URL's backlog to the rows behind it", () => {
    const acct = createAccount(db);
    const now = Date.now();
    rows(rx.url('/a'), 100, acct, now - 5000);
    rows(rx.url('/b'), 2, acct, now - 4000);
    const { claim } = createDispatchStore(db);
    const args = { now, leaseUntil: now + 1000, limit: 10, perEndpoint: 4, inFlight: new Map([[rx.url('/a'), 4]]) };
    expect(claim({ ...args, deep: false })).toEqual([]);
    expect(claim({ ...args, deep: true }).map((r) => r.url)).toEqual(Array(2).fill(rx.url('/b')));
  });

  it('a deep claim with `since` (a wake) finds rows queued since then past a saturated URL, and leaves the older backlog to the full look', () => {
    const acct = createAccount(db);
    const now = Date.now();
    rows(rx.url('/a'), 100, acct, now - 5000);
    rows(rx.url('/b'), 2, acct, now - 4000); // behind /a's backlog, queued before the last look
    rows(rx.url('/c'), 2, acct, now - 10); // queued since
    const { claim } = createDispatchStore(db);
    const args = { now, leaseUntil: now + 1000, limit: 10, perEndpoint: 4, inFlight: new Map([[rx.url('/a'), 4]]), deep: true };
    expect(claim({ ...args, since: now - 100 }).map((r) => r.url)).toEqual(Array(2).fill(rx.url('/c')));
    expect(claim({ ...args, since: 0 }).map((r) => r.url)).toEqual(Array(2).fill(rx.url('/b')));
  });

  it('claims without the write lock (a claim is a read: its leases are in memory); only records take it', () => {
    const acct = createAccount(db);
    const now = Date.now();
    const [done] = rows(rx.url('/a'), 3, acct, now - 1000);
    rows(rx.url('/b'), 1, acct, now + 60_000); // not due yet
    const store = createDispatchStore(db);
    const [first] = store.claim({ now, leaseUntil: now + 1000, limit: 1, perEndpoint: 3, inFlight: new Map(), deep: false });
    expect(first!.id).toBe(done);
    const rec = { seq: first!.seq, id: first!.id, leaseUntil: first!.leaseUntil, status: 'delivered' as const, attemptCount: 1, attemptedAt: now, responseStatus: 200, error: null, nextAttemptAt: null };
    // Another connection holds the write lock (as a server batch would); ours fails at once instead of waiting.
    const other = new Database(db.sqlite.filename);
    other.exec('BEGIN IMMEDIATE');
    db.sqlite.exec('PRAGMA busy_timeout = 0');
    try {
      const full = { now, leaseUntil: now + 1000, limit: 10, perEndpoint: 3, inFlight: new Map([[rx.url('/a'), 3]]), deep: true };
      expect(store.recordAndClaim([], [], full)).toEqual([]);
      expect(store.recordAndClaim([], [], null)).toEqual([]);
      const free = { ...full, inFlight: new Map([[rx.url('/a'), 2]]) };
      expect(store.recordAndClaim([], [], free)).toHaveLength(1);
      expect(() => store.recordAndClaim([rec], [], null)).toThrow(/locked|busy/i);
      expect(() => store.record([rec])).toThrow(/locked|busy/i);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    // The failed record left its lease held: written now; of the other rows the one no claim above took.
    expect(store.recordAndClaim([rec], [], { now, leaseUntil: now + 1000, limit: 10, perEndpoint: 3, inFlight: new Map(), deep: false })).toHaveLength(1);
    expect(deliveryRow(db, done!)).toMatchObject({ status: 'delivered', attemptCount: 1 });
  });

  it("drops a record whose lease was taken over (fencing), so attempts are not double counted", () => {
    const acct = createAccount(db);
    const [id] = rows(rx.url('/a'), 1, acct);
    const store = createDispatchStore(db);
    const now = Date.now();
    const [mine] = store.claim({ now, leaseUntil: now + 10, limit: 1, perEndpoint: 1, inFlight: new Map(), deep: true });
    const [theirs] = store.claim({ now: now + 11, leaseUntil: now + 5000, limit: 1, perEndpoint: 1, inFlight: new Map(), deep: true });
    expect(theirs!.id).toBe(id);
    const rec = { seq: mine!.seq, id: id!, status: 'pending' as const, attemptCount: 1, attemptedAt: now, responseStatus: 500, error: 'x', nextAttemptAt: now + 100 };
    expect(store.record([{ ...rec, leaseUntil: mine!.leaseUntil }])).toBe(0);
    expect(deliveryRow(db, id!)).toMatchObject({ attemptCount: 0, status: 'pending' });
    expect(store.record([{ ...rec, leaseUntil: theirs!.leaseUntil }])).toBe(1);
    expect(deliveryRow(db, id!)).toMatchObject({ attemptCount: 1, leaseUntil: null, nextAttemptAt: now + 100, responseStatus: 500 });
    // Recorded: no longer held; once due again it is claimed again.
    expect(store.claim({ now: now + 100, leaseUntil: now + 9000, limit: 1, perEndpoint: 1, inFlight: new Map(), deep: true }).map((r) => r.id)).toEqual([id]);
  });

  it('holds its leases in memory (one serve per SQLite file): the row stays pending and unleased in the table, is not claimed twice while held, and a new process (after a crash) claims it at once', () => {
    const acct = createAccount(db);
    const ids = rows(rx.url('/a'), 3, acct);
    const store = createDispatchStore(db);
    const now = Date.now();
    const args = { now, leaseUntil: now + 60_000, limit: 10, perEndpoint: 10, inFlight: new Map<string, number>(), deep: true };
    expect(store.claim(args).map((r) => r.id).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(deliveryRow(db, id)).toMatchObject({ status: 'pending', attemptCount: 0, leaseUntil: null });
    expect(store.claim(args)).toEqual([]);
    // Another store on the file (the process after a crash) holds nothing: every row is due to it.
    expect(createDispatchStore(db).claim(args)).toHaveLength(3);
  });

  it('gives a lease back without writing (released rows are claimed again), and a lease whose record failed stays held until the record is written', () => {
    const acct = createAccount(db);
    const [a, b] = rows(rx.url('/a'), 2, acct);
    const store = createDispatchStore(db);
    const now = Date.now();
    const args = { now, leaseUntil: now + 60_000, limit: 10, perEndpoint: 10, inFlight: new Map<string, number>(), deep: true };
    const claimed = store.claim(args);
    const ra = claimed.find((r) => r.id === a)!;
    const rb = claimed.find((r) => r.id === b)!;
    store.release([{ seq: rb.seq, id: rb.id, leaseUntil: rb.leaseUntil }]);
    expect(store.claim(args).map((r) => r.id)).toEqual([b]);
    // The record's transaction fails (here a trigger refuses the write): the lease is still ours, the retry applies.
    db.sqlite.exec("CREATE TEMP TRIGGER refuse BEFORE UPDATE ON webhook_deliveries BEGIN SELECT RAISE(ABORT, 'refused'); END");
    const rec = { seq: ra.seq, id: a!, leaseUntil: ra.leaseUntil, status: 'delivered' as const, attemptCount: 1, attemptedAt: now, responseStatus: 200, error: null, nextAttemptAt: null };
    expect(() => store.recordAndClaim([rec], [], args)).toThrow(/refused/);
    db.sqlite.exec('DROP TRIGGER refuse');
    expect(store.claim(args)).toEqual([]);
    expect(store.record([rec])).toBe(1);
    expect(deliveryRow(db, a!)).toMatchObject({ status: 'delivered', attemptCount: 1 });
  });

  it('reads past the rows it holds: a shallow claim finds due rows behind more held rows than its window', () => {
    const acct = createAccount(db);
    const now = Date.now();
    for (let i = 0; i < 100; i++) rows(rx.url(`/u${i}`), 1, acct, now - 5000);
    const behind = rows(rx.url('/z'), 5, acct, now - 10);
    const store = createDispatchStore(db);
    const args = { now, leaseUntil: now + 60_000, perEndpoint: 4, inFlight: new Map<string, number>() };
    expect(store.claim({ ...args, limit: 100, deep: true })).toHaveLength(100);
    const next = store.claim({ ...args, limit: 10, deep: false });
    expect(next).toHaveLength(4);
    for (const r of next) expect(behind).toContain(r.id);
  });
});
