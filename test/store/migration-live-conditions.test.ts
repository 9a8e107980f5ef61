// Migration 0016 (the live / closed partial indexes' conditions as comparisons instead of IN lists):
// a database written before it keeps the same entries in each of the four indexes, and the
// repositories' INDEXED BY queries (which name the new conditions) read the same rows.
import { Database } from 'bun:sqlite';
import { describe, expect, it } from 'vitest';
import { statesTagged } from '../../machines/judge';
import { INTENT_STATES } from '../../src/domain/intent';
import { openDb } from '../../src/store/db';
import { createIntentRepo } from '../../src/store/intents';
import { MIGRATIONS } from '../../src/store/migrations.generated';
import { INTENT_COLUMNS, type StoredIntent } from '../../src/store/intent-row';
import { intentRowValues } from '../../src/store/intent-writes';
import { storedIntent } from '../support/db';
import { releaseBefore } from '../support/release-before';

const TAG = '0016_live_conditions';
const INDEXES = ['intents_live', 'intents_live_tx', 'intents_chain_updated', 'intents_closed_unfinalized_tx'];

const release = releaseBefore(TAG);

/** Each index's entries (its columns and the rowid), read from the index alone. */
const entriesOf = (s: Database) =>
  Object.fromEntries(INDEXES.map((ix) => [ix, s.query(`SELECT seq, chain, updated_at, state FROM intents INDEXED BY ${ix} WHERE ${whereOf(s, ix)} ORDER BY seq`).all()]));
/** The index's own condition (so the query may use it before and after). */
const whereOf = (s: Database, ix: string) => (s.query('SELECT sql FROM sqlite_master WHERE name = ?').get(ix) as { sql: string }).sql.split(' WHERE ')[1]!;

describe('migration 0016: partial index conditions without IN lists', () => {
  it('keeps the same entries in the four indexes, and the repository reads the same rows', () => {
    const old = release.open();
    expect(MIGRATIONS.map((m) => m.tag)).toContain(TAG);
    for (const ix of INDEXES) expect(whereOf(old, ix)).toMatch(/IN \('created','pending','confirmed','dropped'\)/);
    // (The repository of this release refuses the old conditions: rows go in as its INSERT writes them.)
    const insert = old.prepare(`INSERT INTO intents (${INTENT_COLUMNS.join(', ')}) VALUES (${INTENT_COLUMNS.map(() => '?').join(', ')})`);
    const before = { insert: (i: StoredIntent) => insert.run(...(intentRowValues(i) as never[])) };
    // Every state, with and without a transaction, finalized or not.
    for (const state of INTENT_STATES) {
      before.insert(storedIntent({ state }));
      before.insert(storedIntent({ state, chain: 'solana:devnet', txSignature: `sig-${state}`, updatedAt: 5 }));
      before.insert(storedIntent({ state, txSignature: `fin-${state}`, finalizedAt: 9 }));
    }
    const entries = entriesOf(old);
    expect(entries.intents_live!.length).toBe(3 * statesTagged('live').length);
    expect(entries.intents_live_tx!.length).toBe(2 * statesTagged('live').length);
    expect(entries.intents_chain_updated!.length).toBe(3 * (INTENT_STATES.length - statesTagged('live').length));
    expect(entries.intents_closed_unfinalized_tx!.length).toBe(INTENT_STATES.length - statesTagged('live').length);
    const live = (old.query(`SELECT id FROM intents WHERE ${whereOf(old, 'intents_live')} ORDER BY seq`).all() as Array<{ id: string }>).map((r) => r.id);
    expect(live.length).toBe(3 * statesTagged('live').length);
    old.close();

    const db = openDb(release.path());
    try {
      for (const ix of INDEXES) expect(whereOf(db.sqlite, ix)).not.toMatch(/ IN /);
      expect(entriesOf(db.sqlite)).toEqual(entries);
      expect(db.sqlite.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
      const after = createIntentRepo(db.sqlite, { live: statesTagged('live') });
      expect(after.listLive().map((i) => i.id)).toEqual(live);
      expect(after.listClosedWithTransaction('solana:devnet', 0).map((i) => i.state).sort()).toEqual(
        INTENT_STATES.filter((s) => !statesTagged('live').includes(s)).sort(),
      );
    } finally {
      db.close();
    }
  });
});
