// Outbox (event row + delivery row only when an endpoint exists), in-flight claims (expiry and
// scoping of stored keys: test/store/submissions-payments.test.ts, both engines) and migrations
// that are idempotent on reopen: all on a real SQLite file.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids';
import { migrate, openDb } from '../../src/store/db';
import { createIdempotencyRepo } from '../../src/store/idempotency';
import { createSubmissionRepo } from '../../src/store/submissions';
import { MIGRATIONS } from '../../src/store/migrations.generated';
import { createOutbox } from '../../src/store/outbox';
import { createIntentRepo } from '../../src/store/intents';
import { statesTagged } from '../../machines/judge';
import { storedIntent, tempDb, type TempDb } from '../support/db';
import type { EventEnvelope } from '../../src/domain/intent';
import { toWire } from '../../src/domain/intent';

let t: TempDb;
beforeEach(() => {
  t = tempDb();
  for (const id of ['acct_a', 'acct_b']) {
    t.db.sqlite.query("INSERT INTO accounts (id, name, plan, created_at) VALUES (?, ?, 'pro', 1)").run(id, id);
  }
});
afterEach(() => t.dispose());

const envelope = (mode: 'test' | 'live' = 'test'): EventEnvelope => ({
  eventId: newId('evt'),
  type: 'intent.created',
  createdAt: new Date(5).toISOString(),
  livemode: mode === 'live',
  data: { intent: toWire(storedIntent({ mode })) },
});

describe('outbox', () => {
  it("stores an event's payload as exactly JSON.stringify of its envelope (an intent's joined in SQL; any other as is)", () => {
    const outbox = createOutbox(t.db.sqlite);
    const intents = [
      storedIntent(),
      // Escapes, non-ASCII in two and three UTF-8 bytes, a line separator, a character outside the BMP.
      storedIntent({ mode: 'live', reference: 'order "7" \\ é \u2028 😀', metadata: { a: 'b', 'k"ey': '\n', ü: '€' } }),
      storedIntent({ state: 'expired', refunds: ['pi_x', 'pi_y'], latePayment: { txSignature: '0xdef', amountBaseUnits: 5n, from: '0x3', detectedAt: 1 } }),
    ];
    const envelopes: EventEnvelope[] = intents.map((i) => ({
      eventId: newId('evt'), type: 'intent.created', createdAt: new Date(5).toISOString(), livemode: i.mode === 'live', data: { intent: toWire(i) },
    }));
    envelopes.push({ eventId: newId('evt'), type: 'payment.unmatched', createdAt: new Date(6).toISOString(), livemode: false, data: { payment: { id: 'pay_1', note: 'é' } } } as unknown as EventEnvelope);
    for (const e of envelopes) {
      outbox.append({ envelope: e, accountId: 'acct_a', mode: 'test', intentId: 'intent' in e.data ? e.data.intent.id : null, createdAt: 5 });
      const row = t.db.sqlite.query('SELECT payload, typeof(payload) AS t, length(CAST(payload AS BLOB)) AS bytes FROM events WHERE id = ?').get(e.eventId) as { payload: string; t: string; bytes: number };
      expect(row.t).toBe('text');
      expect(row.payload).toBe(JSON.stringify(e));
      expect(row.bytes).toBe(Buffer.byteLength(JSON.stringify(e), 'utf8'));
    }
  });

  it('writes the event row, and a delivery row only when the account has an endpoint for that mode', () => {
    const outbox = createOutbox(t.db.sqlite);
    const e1 = envelope();
    expect(outbox.append({ envelope: e1, accountId: 'acct_a', mode: 'test', intentId: 'pi_1', createdAt: 5 })).toBe(false);
    const ev = t.db.sqlite.query('SELECT * FROM events WHERE id = ?').get(e1.eventId) as Record<string, unknown>;
    expect(ev).toMatchObject({ account_id: 'acct_a', mode: 'test', intent_id: 'pi_1', type: 'intent.created', created_at: 5 });
    expect(JSON.parse(ev.payload as string)).toEqual(e1);
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM webhook_deliveries').get()).toEqual({ n: 0 });

    // An endpoint for the live mode (or another account) does not count.
    t.db.sqlite.query("INSERT INTO webhook_endpoints (account_id, mode, url, secret, created_at, updated_at) VALUES ('acct_a', 'live', 'https://live.example', 'whsec_x', 1, 1)").run();
    t.db.sqlite.query("INSERT INTO webhook_endpoints (account_id, mode, url, secret, created_at, updated_at) VALUES ('acct_b', 'test', 'http://b.example', 'whsec_y', 1, 1)").run();
    expect(outbox.append({ envelope: envelope(), accountId: 'acct_a', mode: 'test', intentId: 'pi_1', createdAt: 6 })).toBe(false);
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM webhook_deliveries').get()).toEqual({ n: 0 });

    const e3 = envelope('live');
    expect(outbox.append({ envelope: e3, accountId: 'acct_a', mode: 'live', intentId: 'pi_2', createdAt: 7 })).toBe(true);
    const d = t.db.sqlite.query('SELECT * FROM webhook_deliveries').all() as Array<Record<string, unknown>>;
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({
      event_id: e3.eventId, account_id: 'acct_a', mode: 'live', url: 'https://live.example', status: 'pending',
      attempt_count: 0, next_attempt_at: 7, created_at: 7,
    });
    expect(String(d[0]!.id)).toMatch(/^whd_/);
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM events').get()).toEqual({ n: 3 });
  });

  it('an event id is written once', () => {
    const outbox = createOutbox(t.db.sqlite);
    const e = envelope();
    outbox.append({ envelope: e, accountId: 'acct_a', mode: 'test', intentId: 'pi_1', createdAt: 5 });
    expect(() => outbox.append({ envelope: e, accountId: 'acct_a', mode: 'test', intentId: 'pi_1', createdAt: 5 })).toThrow(/UNIQUE/);
  });
});

describe('migrations', () => {
  it('are recorded once and idempotent on reopen; data survives', () => {
    const tags = () => (t.db.sqlite.query('SELECT tag FROM __migrations ORDER BY tag').all() as Array<{ tag: string }>).map((r) => r.tag);
    expect(tags()).toEqual(MIGRATIONS.map((m) => m.tag).sort());
    const i = storedIntent();
    createIntentRepo(t.db.sqlite, { live: statesTagged('live') }).insert(i);
    migrate(t.db.sqlite);
    expect(tags()).toEqual(MIGRATIONS.map((m) => m.tag).sort());
    t.db.close();

    const again = openDb(t.path);
    try {
      expect((again.sqlite.query('SELECT count(*) AS n FROM __migrations').get() as { n: number }).n).toBe(MIGRATIONS.length);
      expect(createIntentRepo(again.sqlite, { live: statesTagged('live') }).get(i.id)).toEqual(i);
      const pragma = (name: string) => Object.values(again.sqlite.query(`PRAGMA ${name}`).get() as object)[0];
      expect(pragma('journal_mode')).toBe('wal');
      expect(pragma('synchronous')).toBe(2); // FULL
      expect(pragma('foreign_keys')).toBe(1);
      expect(pragma('temp_store')).toBe(2); // MEMORY: savepoint journals are not temp files
      const tables = (again.sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name);
      for (const name of ['accounts', 'api_keys', 'events', 'idempotency_keys', 'intents', 'webhook_deliveries', 'webhook_endpoints']) {
        expect(tables).toContain(name);
      }
    } finally {
      again.close();
    }
  });
});

describe('in-flight claims behind the store', () => {
  it('an idempotency key is claimed once per account and mode until released', () => {
    const repo = createIdempotencyRepo(t.db.sqlite);
    expect(repo.claim('acct_a', 'test', 'k1')).toBe(true);
    expect(repo.claim('acct_a', 'test', 'k1')).toBe(false);
    expect(repo.claim('acct_a', 'live', 'k1')).toBe(true);
    expect(repo.claim('acct_b', 'test', 'k1')).toBe(true);
    repo.release('acct_a', 'test', 'k1');
    expect(repo.claim('acct_a', 'test', 'k1')).toBe(true);
  });

  it('a broadcast is claimed once per chain and signature until released', () => {
    const repo = createSubmissionRepo(t.db.sqlite);
    expect(repo.claimBroadcast('eip155:84532', '0xab')).toBe(true);
    expect(repo.isBroadcasting('eip155:84532', '0xab')).toBe(true);
    expect(repo.claimBroadcast('eip155:84532', '0xab')).toBe(false);
    expect(repo.claimBroadcast('eip155:8453', '0xab')).toBe(true);
    repo.releaseBroadcast('eip155:84532', '0xab');
    expect(repo.isBroadcasting('eip155:84532', '0xab')).toBe(false);
  });
});
