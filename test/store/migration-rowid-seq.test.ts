// Migration 0012 (intents, events and webhook_deliveries keep their seq as the plain rowid, no
// AUTOINCREMENT): a database written before it keeps every row with its seq, every index and trigger
// as it was, and the order; rows inserted after it continue above the highest seq.
import { Database } from 'bun:sqlite';
import { describe, expect, it } from 'vitest';
import { statesTagged } from '../../machines/judge';
import { newId } from '../../src/domain/ids';
import { toWire, type EventEnvelope } from '../../src/domain/intent';
import { envelopeJson } from '../../src/domain/intent-json';
import { openDb } from '../../src/store/db';
import { createIntentRepo } from '../../src/store/intents';
import { INTENT_COLUMNS, type StoredIntent } from '../../src/store/intent-row';
import { intentRowValues } from '../../src/store/intent-writes';
import { MIGRATIONS } from '../../src/store/migrations.generated';
import { createOutbox } from '../../src/store/outbox';
import { storedIntent } from '../support/db';
import { releaseBefore } from '../support/release-before';

const TAG = '0012_rowid_seq';
const TABLES = ['intents', 'events', 'webhook_deliveries'];

const release = releaseBefore(TAG);

const schemaOf = (s: Database, type: 'table' | 'index' | 'trigger') =>
  s.query<{ name: string; sql: string }, [string]>(`SELECT name, sql FROM sqlite_master WHERE type = ? AND tbl_name IN ('intents', 'events', 'webhook_deliveries') ORDER BY name`).all(type);
const rowsOf = (s: Database, table: string) => s.query(`SELECT * FROM ${table} ORDER BY seq`).all() as Array<Record<string, unknown>>;
/** A row's values by column name (the rebuilt intents table orders its columns as schema.ts does). */
const byName = (rows: Array<Record<string, unknown>>) => rows.map((r) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b))));

describe('migration 0012: seq without AUTOINCREMENT', () => {
  it('keeps every row with its seq, every index, and new rows continue above the highest seq', () => {
    const old = release.open();
    expect(MIGRATIONS.map((m) => m.tag)).toContain(TAG);
    for (const t of schemaOf(old, 'table')) expect(t.sql).toContain('AUTOINCREMENT');
    old.query("INSERT INTO accounts (id, name, plan, created_at) VALUES ('acct_a', 'a', 'pro', 1)").run();
    old.query("INSERT INTO webhook_endpoints (account_id, mode, url, secret, created_at, updated_at) VALUES ('acct_a', 'test', 'http://h/x', 's', 1, 1)").run();
    // Rows go in as the repository's INSERT writes them (this release's repository refuses a
    // database before 0015: its queries name conditions that only 0015's indexes have).
    const insert = old.prepare(`INSERT INTO intents (${INTENT_COLUMNS.join(', ')}) VALUES (${INTENT_COLUMNS.map(() => '?').join(', ')})`);
    const repo = { insert: (i: StoredIntent) => insert.run(...(intentRowValues(i) as never[])) };
    // The event and its delivery as the outbox writes them (its cached endpoint read needs 0018's count).
    const insertEvent = old.prepare('INSERT INTO events (id, account_id, mode, intent_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const insertDelivery = old.prepare(
      "INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5, 'pending', 0, ?6, ?6)",
    );
    const outbox = {
      append(e: { envelope: EventEnvelope; accountId: string; mode: 'test'; intentId: string; createdAt: number }) {
        insertEvent.run(e.envelope.eventId, e.accountId, e.mode, e.intentId, e.envelope.type, envelopeJson(e.envelope), e.createdAt);
        insertDelivery.run(newId('whd'), e.envelope.eventId, e.accountId, e.mode, 'http://h/x', e.createdAt);
      },
    };
    const intents = [storedIntent(), storedIntent({ reference: 'order-7', metadata: { k: 'v' } }), storedIntent({ state: 'expired', refunds: ['pi_x'] })];
    for (const [n, i] of intents.entries()) {
      repo.insert(i);
      outbox.append({ envelope: { eventId: newId('evt'), type: 'intent.created', createdAt: new Date(n).toISOString(), livemode: false, data: { intent: toWire(i) } }, accountId: 'acct_a', mode: 'test', intentId: i.id, createdAt: n });
    }
    // A gap in the seqs, as any history may hold: kept as it is.
    old.exec('UPDATE intents SET seq = 40 WHERE seq = 3; UPDATE events SET seq = 41 WHERE seq = 3; UPDATE webhook_deliveries SET seq = 42 WHERE seq = 3');
    const before = Object.fromEntries(TABLES.map((t) => [t, byName(rowsOf(old, t))]));
    const indexes = schemaOf(old, 'index');
    const triggers = schemaOf(old, 'trigger');
    expect(triggers.length).toBeGreaterThan(0);
    old.close();

    const db = openDb(release.path());
    try {
      const s = db.sqlite;
      expect(s.query<{ tag: string }, []>('SELECT tag FROM __migrations ORDER BY tag DESC LIMIT 1').get()?.tag).toBe(MIGRATIONS.at(-1)!.tag);
      for (const t of TABLES) expect(byName(rowsOf(s, t))).toEqual(before[t]);
      // Every index as it was (indexes that later migrations add or re-make are theirs to check).
      const later = MIGRATIONS.filter((m) => m.tag > TAG).map((m) => m.sql).join('\n');
      const notLater = (i: { name: string }) => !later.includes(`INDEX \`${i.name}\``);
      expect(schemaOf(s, 'index').filter(notLater)).toEqual(indexes.filter(notLater));
      // The triggers on intents (0011_intent_writes) went with the old table: made again, the same
      // (0017 dropped the INSERT one later: its own test checks that).
      const kept = (t: { name: string }) => !later.includes(`TRIGGER \`${t.name}\``);
      expect(schemaOf(s, 'trigger').filter(kept)).toEqual(triggers.filter(kept));
      const writes = () => s.query<{ n: number }, []>('SELECT n FROM intent_writes WHERE k = 0').get()!.n;
      const writesBefore = writes();
      for (const t of schemaOf(s, 'table')) expect(t.sql).not.toContain('AUTOINCREMENT');
      expect(s.query("SELECT name FROM sqlite_sequence WHERE name IN ('intents', 'events', 'webhook_deliveries')").all()).toEqual([]);
      expect(createIntentRepo(s, { live: statesTagged('live') }).get(intents[1]!.id)).toEqual(intents[1]);

      const next = storedIntent();
      createIntentRepo(s, { live: statesTagged('live') }).insert(next);
      createIntentRepo(s, { live: statesTagged('live') }).update({ ...next, reference: 'counted' });
      expect(writes()).toBe(writesBefore + 1);
      createOutbox(s).append({ envelope: { eventId: newId('evt'), type: 'intent.created', createdAt: new Date(9).toISOString(), livemode: false, data: { intent: toWire(next) } }, accountId: 'acct_a', mode: 'test', intentId: next.id, createdAt: 9 });
      for (const [t, top] of [['intents', 40], ['events', 41], ['webhook_deliveries', 42]] as const) {
        expect(s.query<{ seq: number }, []>(`SELECT max(seq) AS seq FROM ${t}`).get()?.seq).toBe(top + 1);
      }
      // Newest first is still insertion order.
      const list = createIntentRepo(s, { live: statesTagged('live') }).list({ accountId: 'acct_a', mode: 'test', limit: 10 });
      expect(list.map((i) => i.id)).toEqual([next, intents[2]!, intents[1]!, intents[0]!].map((i) => i.id));
    } finally {
      db.close();
    }
  });
});
