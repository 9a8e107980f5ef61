// The plans of the live view's counts per state (src/store/ended-counts.ts), on tables of a real
// size: the live states and the entries into an ended state since a kept count are index ranges
// of the account (never every intent it ever had, which a dashboard page load read before). The
// counts against their definition: test/store/live-counts.test.ts. SQLite's plan and PostgreSQL's;
// and on SQLite the accounts page's count of the intents since its kept count (intents-overview.ts).
import { describe, expect, it } from 'vitest';
import { createEndedCounts, MIN_EVENTS_SINCE } from '../../src/store/ended-counts';
import { COUNT_SINCE_SQL } from '../../src/store/intents-overview';
import { countSql } from '../../src/store/live-events';
import { pgCountSql } from '../../src/store/pg/live-events';
import { STORE_STATES } from '../support/engines';
import { pgPlan, planDbs, sqlitePlan } from '../support/plan-dbs';

const dbs = planDbs();

// 20,000 ended intents of one account, a few live, each with its ended event: an account with history.
const FILL_INTENTS = `INSERT INTO intents (id, account_id, mode, chain, token, token_address, decimals, amount_base_units, requestor,
    direction, state, metadata, ttl_seconds, expires_at, created_at, updated_at, retry_required, pending_at_expiry, snapshot, machine_version)
  SELECT 'pi_' || g, 'acct_a', 'test', 'eip155:84532', 'USDC', '0xtoken', 6, '1', '0xreq', 'request',
    CASE WHEN g % 1000 = 0 THEN 'pending' WHEN g % 3 = 0 THEN 'expired' ELSE 'finalized' END, '{}', 900, 1, g, g, FALSE, FALSE, '{}', 1`;
const FILL_EVENTS = `INSERT INTO events (id, account_id, mode, intent_id, type, payload, created_at)
  SELECT 'evt_' || g, 'acct_a', 'test', 'pi_' || g, CASE WHEN g % 3 = 0 THEN 'intent.expired' ELSE 'intent.finalized' END, '{}', g`;
const N = 20_000;

describe('live view counts: the plans', () => {
  it('SQLite: ranges of intents_account_state per live state and of event positions, never a scan', () => {
    const s = dbs.sqlite(N, FILL_INTENTS, FILL_EVENTS);
    const sql = countSql(STORE_STATES.live);
    const plan = (text: string, ...params: Array<string | number>) => sqlitePlan(s, text, ...params);
    expect(plan(sql.live, 'acct_a', 'test')).toEqual(['SEARCH intents USING COVERING INDEX intents_account_state (account_id=? AND mode=? AND state=?)']);
    // A range of event positions: of this account's (events_account) or of all (the rowid), as the
    // statistics say; both read only the events since the kept count (MAX_EVENTS_SINCE at most).
    const entered = plan(sql.entered, 'acct_a', 'test', N - 10, N);
    expect(entered[0]).toMatch(/^SEARCH events USING (INDEX events_account \(account_id=\? AND mode=\? AND seq>\? AND seq<\?\)|INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\))$/);
    // (At most one group per ended state.)
    expect(entered.slice(1)).toEqual(['USE TEMP B-TREE FOR GROUP BY']);
  });

  it("SQLite: the accounts page counts the intents since its kept count by a range of the rowid, not every intent", () => {
    const s = dbs.sqlite(N, FILL_INTENTS);
    // Before and after the statistics: without them the planner took intents_account_list whole.
    expect(sqlitePlan(s, COUNT_SINCE_SQL, N - 10)).toEqual(['SEARCH intents USING INTEGER PRIMARY KEY (rowid>?)', 'USE TEMP B-TREE FOR GROUP BY']);
    s.exec('DELETE FROM sqlite_stat1; ANALYZE sqlite_schema');
    expect(sqlitePlan(s, COUNT_SINCE_SQL, N - 10)).toEqual(['SEARCH intents USING INTEGER PRIMARY KEY (rowid>?)', 'USE TEMP B-TREE FOR GROUP BY']);
  });

  it('PostgreSQL: index scans of the live intents and of a range of event positions, no sequential scan', async () => {
    const pg = await dbs.pg(N, FILL_INTENTS, FILL_EVENTS);
    const sql = pgCountSql(STORE_STATES.live);
    const plan = (text: string, params: Array<string | number>) => pgPlan(pg, text, params);
    // The live intents: of this account (intents_account_state) or of all (a partial index of the
    // live rows: intents_live, or intents_live_exact, the smaller, whichever the statistics prefer).
    const live = await plan(sql.live, ['acct_a', 'test']);
    expect(live).toMatch(/Index (Only )?Scan using (intents_account_state|intents_live|intents_live_exact) on intents/);
    expect(live).not.toMatch(/Seq Scan/);
    // The entries since the kept count: a range of event positions (of this account's, or of all).
    const entered = await plan(sql.entered, ['acct_a', 'test', N - 10, N]);
    expect(entered).toMatch(/Index (Only )?Scan using (events_account|events_pkey) on events[\s\S]*seq > /);
    expect(entered).not.toMatch(/Seq Scan/);
  });

  it('a kept count is moved forward only while the events since cost less than counting again', () => {
    const kept = createEndedCounts();
    expect(kept.usable('acct_a', 'test', 10)).toBeNull();
    kept.keep('acct_a', 'test', 100, { expired: 1_000_000, finalized: 200_000 });
    expect(kept.usable('acct_a', 'test', 100 + 300_000)?.seq).toBe(100);
    // Past a quarter of the kept total (1.2M / 4): the full count is cheaper.
    expect(kept.usable('acct_a', 'test', 100 + 300_001)).toBeNull();
    // Never behind the kept position, never another account's or mode's.
    expect(kept.usable('acct_a', 'test', 99)).toBeNull();
    expect(kept.usable('acct_b', 'test', 200)).toBeNull();
    expect(kept.usable('acct_a', 'live', 200)).toBeNull();
    // A small account still gets MIN_EVENTS_SINCE; an older count never replaces a newer one.
    kept.keep('acct_b', 'test', 500, { cancelled: 3 });
    expect(kept.usable('acct_b', 'test', 500 + MIN_EVENTS_SINCE)?.seq).toBe(500);
    expect(kept.usable('acct_b', 'test', 501 + MIN_EVENTS_SINCE)).toBeNull();
    kept.keep('acct_b', 'test', 400, { cancelled: 1 });
    expect(kept.usable('acct_b', 'test', 600)?.counts).toEqual({ cancelled: 3 });
  });
});
