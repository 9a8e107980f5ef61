// What only the PostgreSQL repositories are asked, on a real PostgreSQL with the real migrations:
// the outbox in one statement on the caller's transaction, a put racing another transaction, the
// in-flight claims. (The cases both engines share: test/store/submissions-payments.test.ts.)
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids';
import type { EventEnvelope } from '../../../src/domain/intent';
import { toWire } from '../../../src/domain/intent';
import { createPgIdempotencyRepo } from '../../../src/store/pg/idempotency';
import { createPgOutbox } from '../../../src/store/pg/outbox';
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
