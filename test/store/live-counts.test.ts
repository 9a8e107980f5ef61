// The live view's counts per state against their definition (every intent of the account and
// mode, by its state now), after lifecycles run through the real runtime and machine: a count of
// the ended states is kept per store and moved by the events since (src/store/ended-counts.ts),
// so this fails if an entry into an ended state ever writes no event, or two, or one of another
// name, or if an ended state could be left. The accounts page's counts per account (kept on SQLite
// as of the highest intent seq, src/store/intents-overview.ts, whose first count also fills the
// ended counts) against every intent. Both engines; the plans: live-count-plans.test.ts.
import { describe, expect, it } from 'vitest';
import type { Tx } from '../../src/actors/runtime';
import type { Core } from '../../src/compose';
import type { IntentState, Mode } from '../../src/domain/intent';
import type { StoredIntent } from '../../src/store/intents';
import { pendingIntent, scriptedCores } from '../support/core';
import { rawSql } from '../support/raw-sql';

const { start } = scriptedCores((core) => core.runtime.rehydrateLive());

type Step = Parameters<Tx['apply']>[1]['type'];

/** Move one intent through `steps` (each in its own transaction, as chain reports and requests do). */
async function walk(core: Core, row: StoredIntent, steps: Step[]): Promise<void> {
  let cur = row;
  for (const type of steps) {
    const event = (type === 'SIMULATE_FAILED' || type === 'CHAIN_FAILED' ? { type, reason: 'revert' } : { type }) as Parameters<Tx['apply']>[1];
    cur = (await core.runtime.write(async (tx) => tx.apply((await tx.get(cur.id))!, { ...event, at: tx.now, ...('txSignature' in cur && cur.txSignature ? { txSignature: cur.txSignature } : {}) } as never, 'throw')))!;
  }
}

const LIFECYCLES: Step[][] = [
  [],
  ['CANCEL'],
  ['SIMULATE_EXPIRED'],
  ['SIMULATE_FAILED'],
  ['SIMULATE_CONFIRMED'],
  ['SIMULATE_CONFIRMED', 'SIMULATE_FINALIZED'],
  ['SIMULATE_CONFIRMED', 'SIMULATE_FINALIZED', 'DETECTED'],
];
const SUBMITTED: Step[][] = [[], ['CHAIN_FINALIZED'], ['CHAIN_CONFIRMED', 'CHAIN_REORGED'], ['CHAIN_CONFIRMED', 'CHAIN_REORGED', 'CHAIN_FINALIZED'], ['CHAIN_FAILED'], ['CHAIN_DROPPED']];

describe('live view counts per state', () => {
  it('equal a count of every intent by state after each round of lifecycles, the kept ended counts moved by the events since', async () => {
    const { core, path } = await start();
    const raw = rawSql(path);
    try {
      const definition = async (accountId: string, mode: Mode) => {
        const rows = await raw.all<{ state: IntentState; n: number | string }>(
          'SELECT state, COUNT(*) AS n FROM intents WHERE account_id = ? AND mode = ? GROUP BY state',
          accountId,
          mode,
        );
        return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
      };
      const snapshotCounts = async (accountId: string, mode: Mode) => {
        const s = await core.store.repos.liveEvents.snapshot(accountId, mode, 5);
        return Object.fromEntries(Object.entries(s.counts).filter(([, n]) => n !== 0));
      };
      const other = 'acct_other';
      const perAccount = async () => {
        const rows = await raw.all<{ accountId: string; n: number | string }>('SELECT account_id AS "accountId", COUNT(*) AS n FROM intents GROUP BY account_id');
        return new Map(rows.map((r) => [r.accountId, Number(r.n)]));
      };
      for (let round = 0; round < 3; round++) {
        for (const steps of LIFECYCLES) {
          const row = await pendingIntent(core, {}, false);
          await walk(core, row, steps);
          // Another account's intents move too: never in this account's counts.
          await walk(core, await pendingIntent(core, { accountId: other }, false), steps.slice(0, 1));
        }
        for (const steps of SUBMITTED) await walk(core, await pendingIntent(core), steps);
        const accountId = (await pendingIntent(core, {}, false)).accountId;
        // The accounts page first (its first count hands the snapshot the ended counts), then the
        // snapshots: the first counts the ended intents or takes them from there, the later ones
        // add the entries since.
        expect(await core.store.repos.intentsOverview.countsByAccount()).toEqual(await perAccount());
        expect(await snapshotCounts(accountId, 'test')).toEqual(await definition(accountId, 'test'));
        expect(await snapshotCounts(other, 'test')).toEqual(await definition(other, 'test'));
        expect(await snapshotCounts(accountId, 'live')).toEqual({});
      }
    } finally {
      await raw.close();
    }
  });
});
