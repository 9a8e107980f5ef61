// The operator's counts of intents per account on a real PostgreSQL (the dashboard's accounts
// page), kept as of the events' commit horizon and exact at every load: intents created between
// loads, in several accounts and modes; a creation that drew its seqs and committed AFTER a later
// one had committed and been counted (a count kept as of the highest intent seq seen would miss
// it for ever); a rolled-back creation; two stores on one database (another instance's creates).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statesTagged } from '../../../machines/judge';
import { createdEvent } from '../../../src/actors/fresh-row';
import { createPgIntentRepo } from '../../../src/store/pg/intents';
import { createKeptIntentCounts, createPgIntentsOverviewRepo } from '../../../src/store/pg/intents-overview';
import { createSeqHorizon } from '../../../src/store/pg/live-events';
import { createPgOutbox } from '../../../src/store/pg/outbox';
import type { Pg } from '../../../src/store/pg/sql';
import { storedIntent } from '../../support/db';
import { type PgTestDb, pgTestDb } from './db';

let t: PgTestDb;
beforeEach(async () => (t = await pgTestDb()));
afterEach(() => t.dispose());

const live = statesTagged('live');
/** A creation as the runtime writes it: the intent row, then its intent.created event, on `q`. */
async function createOn(q: Pg, accountId: string, mode: 'test' | 'live' = 'test'): Promise<void> {
  const row = storedIntent({ accountId, mode, reference: null });
  await createPgIntentRepo(q, { live }).insert(row);
  await createPgOutbox(q).append(createdEvent(row, Date.now()));
}
const create = (accountId: string, mode: 'test' | 'live' = 'test') => t.sql.begin((tx) => createOn(tx as unknown as Pg, accountId, mode));
/** What the page counted every time before: every intent, by account. */
async function fullCount(): Promise<Map<string, number>> {
  const list = (await t.sql.unsafe('SELECT account_id AS a, COUNT(*)::int AS n FROM intents GROUP BY account_id')) as Array<{ a: string; n: number }>;
  return new Map(list.map((r) => [r.a, r.n]));
}
const overview = () => createPgIntentsOverviewRepo(t.sql, createSeqHorizon(t.sql), createKeptIntentCounts());
const sorted = (m: Map<string, number>) => new Map([...m].sort(([a], [b]) => (a < b ? -1 : 1)));

describe("the accounts page's counts (PostgreSQL)", () => {
  it('are exact at every load, the intents created between loads included', async () => {
    const repo = overview();
    expect(await repo.countsByAccount()).toEqual(new Map());
    await create('acct_a');
    await create('acct_a', 'live');
    await create('acct_b');
    expect(sorted(await repo.countsByAccount())).toEqual(new Map([['acct_a', 2], ['acct_b', 1]]));
    for (let i = 0; i < 5; i++) {
      await create(i % 2 ? 'acct_b' : 'acct_c');
      expect(sorted(await repo.countsByAccount())).toEqual(sorted(await fullCount()));
    }
    // A first load on a database that already has intents (a restarted server) agrees too.
    expect(sorted(await overview().countsByAccount())).toEqual(sorted(await fullCount()));
  });

  it('count a creation that committed after a later one was counted (its seqs are lower), never a rolled-back one', async () => {
    const repo = overview();
    await create('acct_a');
    expect(await repo.countsByAccount()).toEqual(new Map([['acct_a', 1]]));
    // A creation draws its intent and event seqs and stays open ...
    let mayCommit!: () => void;
    const commit = new Promise<void>((r) => (mayCommit = r));
    let drew!: () => void;
    const drawn = new Promise<void>((r) => (drew = r));
    const straggler = t.sql.begin(async (tx) => {
      await createOn(tx as unknown as Pg, 'acct_a');
      drew();
      await commit;
    });
    try {
      await drawn;
      // ... while later ones (higher seqs) commit and are counted, at several loads.
      for (let i = 0; i < 3; i++) {
        await create('acct_a');
        expect(await repo.countsByAccount()).toEqual(new Map([['acct_a', 2 + i]]));
      }
    } finally {
      mayCommit();
      await straggler;
    }
    expect(await repo.countsByAccount()).toEqual(new Map([['acct_a', 5]]));
    // A creation rolled back (its seqs drawn, never committed) is not counted, now or later.
    await expect(
      t.sql.begin(async (tx) => {
        await createOn(tx as unknown as Pg, 'acct_a');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await create('acct_b');
    expect(sorted(await repo.countsByAccount())).toEqual(new Map([['acct_a', 5], ['acct_b', 1]]));
    expect(sorted(await repo.countsByAccount())).toEqual(sorted(await fullCount()));
  });

  it("count another instance's creations (a second store on the same database)", async () => {
    const repo = overview();
    expect(await repo.countsByAccount()).toEqual(new Map());
    const other = await pgTestDbOn(t.url);
    try {
      await createOn(other, 'acct_a');
      await t.sql.begin((tx) => createOn(tx as unknown as Pg, 'acct_a'));
      await other.begin((tx) => createOn(tx as unknown as Pg, 'acct_b'));
      expect(sorted(await repo.countsByAccount())).toEqual(new Map([['acct_a', 2], ['acct_b', 1]]));
    } finally {
      await other.close();
    }
  });
});

async function pgTestDbOn(url: string) {
  const { SQL } = await import('bun');
  return new SQL({ url, max: 2 });
}
