// The detectors' per-poll read of unfinalized matches, on tables of a real size: it is reached from
// the chain's live intents that hold a transaction and the ambiguous payments, never by reading every payment the chain
// ever had (that grew with every payment and ran on every poll). SQLite's plan and PostgreSQL's,
// each with the real migrations; what the read returns: test/store/detection.test.ts.
import { describe, expect, it } from 'vitest';
import { unfinalizedMatchesSql } from '../../src/store/detection';
import { pgUnfinalizedMatchesSql } from '../../src/store/pg/detection';
import { STORE_STATES } from '../support/engines';
import { pgPlan, planDbs, sqlitePlan } from '../support/plan-dbs';

const dbs = planDbs();

// 5,000 finalized intents each with its matched payment, and a few live ones: what a busy chain holds.
const FILL_INTENTS = `INSERT INTO intents (id, account_id, mode, chain, token, token_address, decimals, amount_base_units, requestor,
    direction, state, metadata, ttl_seconds, expires_at, created_at, updated_at, retry_required, pending_at_expiry, tx_signature,
    snapshot, machine_version)
  SELECT 'pi_' || g, 'acct_a', 'test', 'eip155:84532', 'USDC', '0xtoken', 6, '1', '0xreq', 'request',
    CASE WHEN g % 1000 = 0 THEN 'pending' ELSE 'finalized' END, '{}', 900, 1, g, g, FALSE, FALSE, '0xt' || g, '{}', 1`;
const FILL_PAYMENTS = `INSERT INTO payments (id, account_id, mode, chain, token, token_address, decimals, amount_base_units, from_address,
    to_address, tx_signature, intent_id, status, reason, detected_at)
  SELECT 'pay_' || g, 'acct_a', 'test', 'eip155:84532', 'USDC', '0xtoken', 6, '1', '0xf', '0xto', '0xt' || g, 'pi_' || g, 'matched', NULL, g`;

describe('unfinalized matches: the plan of the per-poll read', () => {
  it('SQLite: live intents holding a transaction through intents_live_tx (never every live intent), ambiguous payments through payments_ambiguous, no scan of payments', () => {
    const s = dbs.sqlite(5000, FILL_INTENTS, FILL_PAYMENTS);
    const plan = sqlitePlan(s, unfinalizedMatchesSql(STORE_STATES), 'eip155:84532');
    expect(plan.some((d) => /SEARCH i USING COVERING INDEX intents_live_tx \(chain=\? AND tx_signature>\?\)/.test(d))).toBe(true);
    expect(plan.some((d) => /SEARCH p USING INDEX payments_ambiguous \(chain=\?\)/.test(d))).toBe(true);
    // Payments only by one transaction (payments_tx on both columns) or as an ambiguous one: never a
    // range of payments_tx by chain alone (every payment of the chain), never a scan.
    expect(plan.filter((d) => /\bp\b/.test(d) && !/SEARCH p USING (INDEX payments_ambiguous \(chain=\?\)|INDEX payments_tx \(chain=\? AND tx_signature=\?\))/.test(d))).toEqual([]);
  });

  it('PostgreSQL: no sequential scan of payments or intents', async () => {
    const pg = await dbs.pg(5000, FILL_INTENTS, FILL_PAYMENTS);
    const plan = await pgPlan(pg, pgUnfinalizedMatchesSql(STORE_STATES), ['eip155:84532']);
    expect(plan).not.toMatch(/Seq Scan on (payments|intents)/);
    expect(plan).toMatch(/payments_ambiguous/);
    expect(plan).toMatch(/intents_live_tx/);
  });
});
