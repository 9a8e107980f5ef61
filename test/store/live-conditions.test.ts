// Migration 0016: the live / closed partial indexes' conditions are comparisons, not IN lists.
// SQLite evaluates a constant IN list of more than two values by building a temporary b-tree of it
// each time the statement runs, and every INSERT and UPDATE of an intent evaluates each partial
// index's condition: three such b-trees per create before 0016 (~24 % of its SQL instructions).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INTENT_COLUMNS } from '../../src/store/intent-row';
import { tempDb, type TempDb } from '../support/db';

let t: TempDb;
beforeEach(() => (t = tempDb()));
afterEach(() => t.dispose());

/** The opcodes of a statement's program (its triggers' programs are separate: not listed). */
const opcodes = (sql: string) => (t.db.sqlite.query(`EXPLAIN ${sql}`).all() as Array<{ opcode: string }>).map((r) => r.opcode);

describe('writing an intent builds no temporary b-tree for the partial indexes', () => {
  it('INSERT (as IntentRepo.insert and the group committer run it)', () => {
    const ops = opcodes(`INSERT INTO intents (${INTENT_COLUMNS.join(', ')}) VALUES (${INTENT_COLUMNS.map(() => '?').join(', ')})`);
    expect(ops).toContain('IdxInsert');
    expect(ops).not.toContain('OpenEphemeral');
  });

  it('full-row UPDATE by id (IntentRepo.update)', () => {
    const ops = opcodes(`UPDATE intents SET ${INTENT_COLUMNS.slice(1).map((c) => `${c} = ?`).join(', ')} WHERE id = ?`);
    expect(ops).toContain('IdxInsert');
    expect(ops).not.toContain('OpenEphemeral');
  });

  it('the same INSERT against the conditions as they were (IN lists) did build them: the check above can fail', () => {
    t.db.sqlite.exec(`DROP INDEX intents_live; CREATE INDEX intents_live ON intents (chain, requestor, token_address, created_at, state)
      WHERE state IN ('created','pending','confirmed','dropped')`);
    const ops = opcodes(`INSERT INTO intents (${INTENT_COLUMNS.join(', ')}) VALUES (${INTENT_COLUMNS.map(() => '?').join(', ')})`);
    expect(ops).toContain('OpenEphemeral');
  });
});
