// The intents repository on a real SQLite file with the real migrations: what only SQLite is asked
// (text affinity, the partial indexes its INDEXED BY queries insist on).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIntentRepo, liveHeadsSql } from '../../src/store/intents';
import { stateIs, stateIsNot } from '../../src/store/states';
import { LIVE, NOT_LIVE } from '../../src/store/schema';
import { createDetectionRepo } from '../../src/store/detection';
import { INTENT_STATES } from '../../src/domain/intent';
import { statesTagged } from '../../machines/judge';
import { storedIntent, tempDb, type TempDb } from '../support/db';

const esc = (x: string) => x.replace(/[()]/g, '\\$&');

let t: TempDb;
let repo: ReturnType<typeof createIntentRepo>;
beforeEach(() => {
  t = tempDb();
  repo = createIntentRepo(t.db.sqlite, { live: statesTagged('live') });
});
afterEach(() => t.dispose());

describe('intents repo (SQLite only; the cases both engines share: test/store/intents-repo.test.ts)', () => {
  it('listByReceiver past a full page: the live ones of the amount from intents_live_exact, the closed ones among the next 4000 of the receiver', () => {
    const R = '0x1111111111111111111111111111111111111111';
    const at = (over: Parameters<typeof storedIntent>[0]) => storedIntent({ requestor: R, ...over });
    const closedOld = at({ state: 'expired', amountBaseUnits: 7n, updatedAt: 50 });
    // Closed before the look-back (updated before `since`), and closed with another sender as fulfiller: not candidates.
    const closedStale = at({ state: 'expired', amountBaseUnits: 7n, updatedAt: 5 });
    const otherSender = at({ state: 'cancelled', amountBaseUnits: 7n, updatedAt: 50, fulfiller: '0x3333333333333333333333333333333333333333' });
    const liveOld = at({ state: 'created', amountBaseUnits: 7n });
    // Beyond reach: the 4001st older than the page's oldest (the four above and 3996 others);
    // then the page's 1000 (other amounts).
    const beyond = at({ state: 'expired', amountBaseUnits: 7n, updatedAt: 50 });
    t.db.sqlite.exec('BEGIN');
    for (const i of [beyond, closedStale, closedOld, otherSender, liveOld]) repo.insert(i);
    for (let n = 0; n < 3996 + 1000; n++) repo.insert(at({ state: 'created', amountBaseUnits: BigInt(100 + n) }));
    t.db.sqlite.exec('COMMIT');
    const got = repo.listByReceiver('eip155:84532', R, liveOld.tokenAddress, 10, { amountBaseUnits: 7n, from: '0x2222222222222222222222222222222222222222' });
    expect(got).toHaveLength(1002);
    expect(got.slice(1000).map((i) => i.id)).toEqual([liveOld.id, closedOld.id]);
    // Without the new index the live read would not prepare (INDEXED BY); the closed one reads intents_receiver's seqs.
    const plan = (sql: string) => (t.db.sqlite.query(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((r) => r.detail).join(' | ');
    expect(plan(`SELECT * FROM intents WHERE (${LIVE}) AND chain = 'c' AND requestor = 'r' AND token_address = 't' AND amount_base_units = '7'`)).toContain('intents_live_exact');
  });

  it('stores an amount as exact text, not a lossy REAL', () => {
    const big = 2n ** 64n + 123_456_789n;
    const i = storedIntent({ amountBaseUnits: big, decimals: 18 });
    repo.insert(i);
    const raw = t.db.sqlite.query('SELECT amount_base_units AS a, typeof(amount_base_units) AS ty FROM intents WHERE id = ?').get(i.id) as { a: string; ty: string };
    expect(raw).toEqual({ a: big.toString(), ty: 'text' });
  });

  it('takes its state sets from the caller: the live list it is given, never one of its own', () => {
    for (const state of INTENT_STATES) repo.insert(storedIntent({ state, txSignature: `sig-${state}` }));
    expect(repo.listLive().map((i) => i.state)).toEqual([...statesTagged('live')]);
    // Its SQL is built from the list it is given: another list no longer matches the partial
    // index its queries insist on (INDEXED BY), so the repository refuses to start.
    expect(() => createIntentRepo(t.db.sqlite, { live: ['pending'] })).toThrow(/no query solution/);
    expect(() => createIntentRepo(t.db.sqlite, { live: ["created') OR ('1'='1" as never] })).toThrow(/unknown intent state/);
    expect(() => createIntentRepo(t.db.sqlite, { live: [] })).toThrow(/empty state set/);
  });

  it('the partial indexes (migrations) split the states exactly at the machine\'s live tag', () => {
    const sqlOf = (name: string) => (t.db.sqlite.query('SELECT sql FROM sqlite_master WHERE name = ?').get(name) as { sql: string }).sql;
    // stateIs / stateIsNot of the live tag are the conditions the queries repeat (parenthesized).
    const live = stateIs(statesTagged('live')).slice(1, -1);
    const closed = stateIsNot(statesTagged('live')).slice(1, -1);
    expect(live).toBe(LIVE);
    expect(closed).toBe(NOT_LIVE);
    expect(sqlOf('intents_live')).toMatch(new RegExp(`WHERE ${esc(live)}$`));
    expect(sqlOf('intents_chain_updated')).toMatch(new RegExp(`WHERE ${esc(closed)}$`));
    expect(sqlOf('intents_live_tx')).toMatch(new RegExp(`WHERE tx_signature IS NOT NULL AND ${esc(`(${live})`)}$`));
    expect(sqlOf('intents_closed_unfinalized_tx')).toMatch(new RegExp(`WHERE ${esc(closed)} AND tx_signature IS NOT NULL AND finalized_at IS NULL$`));
    // Every state is in exactly one of the two halves.
    for (const state of INTENT_STATES) {
      const inLive = t.db.sqlite.query(`SELECT ${live} AS v FROM (SELECT ? AS state)`).get(state) as { v: number };
      const inClosed = t.db.sqlite.query(`SELECT ${closed} AS v FROM (SELECT ? AS state)`).get(state) as { v: number };
      expect([inLive.v, inClosed.v]).toEqual(statesTagged('live').includes(state) ? [1, 0] : [0, 1]);
    }
    // Detection's INDEXED BY intents_live refuses to prepare when its live list no longer matches.
    expect(() => createDetectionRepo(t.db.sqlite, { live: statesTagged('live'), watching: statesTagged('watching') })).not.toThrow();
    expect(() => createDetectionRepo(t.db.sqlite, { live: ['pending'], watching: statesTagged('watching') })).toThrow(/no query solution/);
  });

  it('liveHeadsPage seeks into intents_live and reads it in its own order: no sort of the live rows per page', () => {
    const sql = liveHeadsSql(stateIs(statesTagged('live')));
    const plan = (q: string, ...args: unknown[]) =>
      (t.db.sqlite.query(`EXPLAIN QUERY PLAN ${q}`).all(...(args as never[])) as Array<{ detail: string }>).map((r) => r.detail).join(' | ');
    // A sort would read every live row for each page (the whole scan quadratic in live intents).
    expect(plan(sql.first, 500)).toMatch(/^SCAN intents USING INDEX intents_live$/);
    expect(plan(sql.after, 'eip155:84532', '0x1', '0x2', 5, 500)).toBe('SEARCH intents USING INDEX intents_live ((chain,requestor,token_address,created_at)>(?,?,?,?))');
    expect(plan(sql.at, 'eip155:84532', '0x1', '0x2', 5)).toMatch(/^SEARCH intents USING INDEX intents_live \(chain=\? AND requestor=\? AND token_address=\? AND created_at=\?/);
  });
});
