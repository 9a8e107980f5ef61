// Outbox (event row + delivery row only when an endpoint exists), idempotency keys with expiry,
// submissions and payments on a real PostgreSQL with the real migrations: the SQLite store's
// cases (test/store/outbox-idempotency.test.ts) on the PG repositories.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids';
import type { EventEnvelope } from '../../../src/domain/intent';
import { toWire } from '../../../src/domain/intent';
import { createPgIdempotencyRepo } from '../../../src/store/pg/idempotency';
import { createPgOutbox } from '../../../src/store/pg/outbox';
import { createPgPaymentRepo } from '../../../src/store/pg/payments';
import { createPgSubmissionRepo } from '../../../src/store/pg/submissions';
import { storedIntent } from '../../support/db';
import { type PgTestDb, pgTestDb } from './db';

let t: PgTestDb;
beforeEach(async () => {
  t = await pgTestDb();
  for (const id of ['acct_a', 'acct_b']) await t.sql`INSERT INTO accounts (id, name, plan, created_at) VALUES (${id}, ${id}, 'pro', 1)`;
});
afterEach(() => t.dispose());

const envelope = (mode: 'test' | 'live' = 'test'): EventEnvelope => ({
  eventId: newId('evt'),
  type: 'intent.created',
  createdAt: new Date(5).toISOString(),
  livemode: mode === 'live',
  data: { intent: toWire(storedIntent({ mode })) },
});
const count = async (table: string) => (await t.sql.unsafe(`SELECT count(*)::int AS n FROM ${table}`))[0].n as number;

describe('outbox (PostgreSQL)', () => {
  it('writes the event row, and a delivery row only when the account has an endpoint for that mode', async () => {
    const outbox = createPgOutbox(t.sql);
    const e1 = envelope();
    expect(await outbox.append({ envelope: e1, accountId: 'acct_a', mode: 'test', intentId: 'pi_1', createdAt: 5 })).toBe(false);
    const [ev] = await t.sql`SELECT * FROM events WHERE id = ${e1.eventId}`;
    expect(ev).toMatchObject({ account_id: 'acct_a', mode: 'test', intent_id: 'pi_1', type: 'intent.created', created_at: '5' });
    // The exact bytes receivers get and signatures cover.
    expect(ev.payload).toBe(JSON.stringify(e1));
    expect(await count('webhook_deliveries')).toBe(0);

    await t.sql`INSERT INTO webhook_endpoints (account_id, mode, url, secret, created_at, updated_at) VALUES ('acct_a', 'live', 'https://live.example', 'whsec_x', 1, 1)`;
    await t.sql`INSERT INTO webhook_endpoints (account_id, mode, url, secret, created_at, updated_at) VALUES ('acct_b', 'test', 'http://b.example', 'whsec_y', 1, 1)`;
    expect(await outbox.append({ envelope: envelope(), accountId: 'acct_a', mode: 'test', intentId: 'pi_1', createdAt: 6 })).toBe(false);
    expect(await count('webhook_deliveries')).toBe(0);

    const e3 = envelope('live');
    expect(await outbox.append({ envelope: e3, accountId: 'acct_a', mode: 'live', intentId: 'pi_2', createdAt: 7 })).toBe(true);
    const d = await t.sql`SELECT * FROM webhook_deliveries`;
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({
      event_id: e3.eventId, account_id: 'acct_a', mode: 'live', url: 'https://live.example', status: 'pending',
      attempt_count: 0, next_attempt_at: '7', created_at: '7', lease_until: null,
    });
    expect(String(d[0].id)).toMatch(/^whd_/);
    expect(await count('events')).toBe(3);
    // An event without an intent (payment.unmatched) is fine.
    expect(await outbox.append({ envelope: envelope(), accountId: 'acct_b', mode: 'test', intentId: null, createdAt: 8 })).toBe(true);
  });

  it('an event id is written once; a failed append leaves no delivery behind', async () => {
    await t.sql`INSERT INTO webhook_endpoints (account_id, mode, url, secret, created_at, updated_at) VALUES ('acct_a', 'test', 'https://a.example', 'whsec_x', 1, 1)`;
    const outbox = createPgOutbox(t.sql);
    const e = envelope();
    await outbox.append({ envelope: e, accountId: 'acct_a', mode: 'test', intentId: 'pi_1', createdAt: 5 });
    await expect(outbox.append({ envelope: e, accountId: 'acct_a', mode: 'test', intentId: 'pi_1', createdAt: 5 })).rejects.toThrow(/duplicate key/);
    expect(await count('webhook_deliveries')).toBe(1);
  });

  it('writes in the caller\'s transaction: a rollback takes the event and its delivery with it', async () => {
    await t.sql`INSERT INTO webhook_endpoints (account_id, mode, url, secret, created_at, updated_at) VALUES ('acct_a', 'test', 'https://a.example', 'whsec_x', 1, 1)`;
    await expect(
      t.sql.begin(async (tx) => {
        expect(await createPgOutbox(tx as never).append({ envelope: envelope(), accountId: 'acct_a', mode: 'test', intentId: 'pi_1', createdAt: 5 })).toBe(true);
        throw new Error('transition failed');
      }),
    ).rejects.toThrow('transition failed');
    expect(await count('events')).toBe(0);
    expect(await count('webhook_deliveries')).toBe(0);
  });
});

describe('idempotency keys (PostgreSQL)', () => {
  it('returns the stored response until it expires, scoped per account and mode, and purges expired ones', async () => {
    const repo = createPgIdempotencyRepo(t.sql);
    const r = { requestHash: 'h1', responseStatus: 201, responseBody: '{"intent":{"id":"pi_1"}}' };
    await repo.put('acct_a', 'test', 'key-1', r, 1000, 10);
    expect(await repo.get('acct_a', 'test', 'key-1', 1000)).toEqual(r);
    expect(await repo.get('acct_a', 'test', 'key-1', 10_999)).toEqual(r);
    expect(await repo.get('acct_a', 'test', 'key-1', 11_000)).toBeNull();
    expect(await repo.get('acct_a', 'live', 'key-1', 1000)).toBeNull();
    expect(await repo.get('acct_b', 'test', 'key-1', 1000)).toBeNull();
    expect(await repo.get('acct_a', 'test', 'key-2', 1000)).toBeNull();

    await repo.put('acct_b', 'test', 'key-1', { ...r, requestHash: 'h2' }, 1000, 100);
    expect((await repo.get('acct_b', 'test', 'key-1', 1000))?.requestHash).toBe('h2');
    expect((await repo.get('acct_a', 'test', 'key-1', 1000))?.requestHash).toBe('h1');

    expect(await repo.purge(10_999)).toBe(0);
    expect(await repo.purge(11_000)).toBe(1);
    expect((await repo.get('acct_b', 'test', 'key-1', 11_000))?.requestHash).toBe('h2');
    // An expired key can be used again.
    expect(await repo.put('acct_a', 'test', 'key-1', { ...r, requestHash: 'h3' }, 20_000, 10)).toBe(true);
    expect((await repo.get('acct_a', 'test', 'key-1', 20_000))?.requestHash).toBe('h3');
  });

  it('two transactions putting one key: the second waits for the first and writes nothing (no overwrite of a committed response)', async () => {
    const r = { requestHash: 'h1', responseStatus: 201, responseBody: '{"intent":{"id":"pi_1"}}' };
    let release!: () => void;
    const held = new Promise<void>((res) => (release = res));
    let firstWrote!: () => void;
    const wrote = new Promise<void>((res) => (firstWrote = res));
    const first = t.sql.begin(async (tx) => {
      const ok = await createPgIdempotencyRepo(tx).put('acct_a', 'test', 'race', r, 1000, 60);
      firstWrote();
      await held;
      return ok;
    });
    await wrote;
    const second = t.sql.begin((tx) => createPgIdempotencyRepo(tx).put('acct_a', 'test', 'race', { ...r, requestHash: 'h2', responseBody: '{}' }, 1000, 60));
    release();
    expect(await first).toBe(true);
    expect(await second).toBe(false);
    expect(await createPgIdempotencyRepo(t.sql).get('acct_a', 'test', 'race', 1000)).toEqual(r);
  });

  it('an idempotency key is claimed once per account and mode until released', async () => {
    const repo = createPgIdempotencyRepo(t.sql);
    expect(await repo.claim('acct_a', 'test', 'k1')).toBe(true);
    expect(await repo.claim('acct_a', 'test', 'k1')).toBe(false);
    expect(await repo.claim('acct_a', 'live', 'k1')).toBe(true);
    expect(await repo.claim('acct_b', 'test', 'k1')).toBe(true);
    await repo.release('acct_a', 'test', 'k1');
    expect(await repo.claim('acct_a', 'test', 'k1')).toBe(true);
  });
});

describe('submissions (PostgreSQL)', () => {
  const base = { intentId: 'pi_1', chain: 'eip155:84532', signer: '0xsigner', signedTransaction: 'AAAA', watchData: { nonce: 3 }, source: 'submit' as const, status: 'sending' as const, createdAt: 10 };

  it('records, marks, retries and lists open and sending rows oldest first', async () => {
    const repo = createPgSubmissionRepo(t.sql);
    const a = await repo.record({ ...base, txSignature: '0xa' });
    expect(a).toMatchObject({ ...base, txSignature: '0xa', outcome: null, updatedAt: 10 });
    expect(typeof a.seq).toBe('number');
    const b = await repo.record({ ...base, txSignature: '0xb', watchData: null, signedTransaction: null, source: 'txid' });
    await expect(repo.record({ ...base, txSignature: '0xa' })).rejects.toThrow(/duplicate key/);
    expect(await repo.hasSending('pi_1')).toBe(true);
    expect((await repo.sending()).map((s) => s.txSignature)).toEqual(['0xa', '0xb']);

    await repo.markSent('eip155:84532', '0xa', 11);
    await repo.markRejected('eip155:84532', '0xb', 12);
    expect(await repo.hasSending('pi_1')).toBe(false);
    expect(await repo.sending()).toEqual([]);
    expect((await repo.openForIntent('pi_1')).map((s) => s.txSignature)).toEqual(['0xa']);
    expect(await repo.findByTx('eip155:84532', '0xb')).toMatchObject({ status: 'rejected', updatedAt: 12, seq: b.seq, watchData: null });

    const again = await repo.retry({ ...base, txSignature: '0xb', intentId: 'pi_2', createdAt: 20 });
    expect(again).toMatchObject({ seq: b.seq, intentId: 'pi_2', status: 'sending', outcome: null, createdAt: 10, updatedAt: 20, watchData: { nonce: 3 } });

    await repo.setOutcome('eip155:84532', '0xa', 'landed', 30);
    expect(await repo.openForIntent('pi_1')).toEqual([]);
    await repo.setOutcome('eip155:84532', '0xa', null, 31);
    expect((await repo.openForIntent('pi_1')).map((s) => s.txSignature)).toEqual(['0xa']);
    expect(await repo.findByTx('eip155:8453', '0xa')).toBeNull();
  });

  it('a broadcast is claimed once per chain and signature until released', async () => {
    const repo = createPgSubmissionRepo(t.sql);
    expect(await repo.claimBroadcast('eip155:84532', '0xab')).toBe(true);
    expect(await repo.isBroadcasting('eip155:84532', '0xab')).toBe(true);
    expect(await repo.claimBroadcast('eip155:84532', '0xab')).toBe(false);
    expect(await repo.claimBroadcast('eip155:8453', '0xab')).toBe(true);
    await repo.releaseBroadcast('eip155:84532', '0xab');
    expect(await repo.isBroadcasting('eip155:84532', '0xab')).toBe(false);
  });
});

describe('payments (PostgreSQL)', () => {
  const payment = (over: Record<string, unknown> = {}) => ({
    id: newId('pay'), accountId: 'acct_a', mode: 'test' as const, chain: 'eip155:84532', token: 'USDC', tokenAddress: '0xtoken', decimals: 6,
    amountBaseUnits: 2n ** 90n + 1n, from: '0xfrom', to: '0xto', txSignature: newId('pay'), intentId: null as string | null,
    status: 'unmatched' as const, reason: 'no_open_intent' as const, detectedAt: 1_700_000_000_123, ...over,
  });

  it('round-trips, is unique per transaction, lists newest first with filters and settles', async () => {
    const repo = createPgPaymentRepo(t.sql);
    const a = payment();
    await repo.insert(a);
    const got = (await repo.get(a.id))!;
    expect(got).toEqual({ ...a, seq: got.seq });
    expect(typeof got.seq).toBe('number');
    expect(await repo.findByTx('eip155:84532', a.txSignature)).toEqual(got);
    await expect(repo.insert(payment({ txSignature: a.txSignature }))).rejects.toThrow(/duplicate key/);
    const b = payment({ status: 'matched', reason: null, intentId: 'pi_1' });
    const c = payment({ accountId: 'acct_b' });
    await repo.insert(b);
    await repo.insert(c);
    const ids = async (q: Parameters<typeof repo.list>[0]) => (await repo.list(q)).map((p) => p.id);
    expect(await ids({ accountId: 'acct_a', mode: 'test', limit: 10 })).toEqual([b.id, a.id]);
    expect(await ids({ limit: 10 })).toEqual([c.id, b.id, a.id]);
    expect(await ids({ accountId: 'acct_a', status: 'unmatched', limit: 10 })).toEqual([a.id]);
    expect(await ids({ limit: 10, beforeSeq: (await repo.get(b.id))!.seq })).toEqual([a.id]);
    expect(await ids({ limit: 1 })).toEqual([c.id]);
    await repo.settle(a.id, 'pi_9');
    expect(await repo.get(a.id)).toMatchObject({ status: 'matched', reason: null, intentId: 'pi_9' });
  });
});
