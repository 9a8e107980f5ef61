// The intents repository on a real PostgreSQL with the real migrations: what only PostgreSQL is
// asked, above all the row lock that serializes one intent's transitions.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statesTagged } from '../../../machines/judge';
import { createPgIntentRepo, type PgIntentRepo } from '../../../src/store/pg/intents';
import type { Pg } from '../../../src/store/pg/sql';
import { storedIntent } from '../../support/db';
import { type PgTestDb, pgTestDb, waitingOnLock } from './db';

let t: PgTestDb;
let repo: PgIntentRepo;
const LIVE = { live: statesTagged('live') };
beforeEach(async () => {
  t = await pgTestDb();
  repo = createPgIntentRepo(t.sql, LIVE);
});
afterEach(() => t.dispose());

describe('intents repo (PostgreSQL only; the cases both engines share: test/store/intents-repo.test.ts)', () => {
  it('stores an amount as exact text', async () => {
    const big = 2n ** 64n + 123_456_789n;
    const i = storedIntent({ amountBaseUnits: big, decimals: 18 });
    await repo.insert(i);
    const [raw] = await t.sql`SELECT amount_base_units AS a, pg_typeof(amount_base_units)::text AS ty FROM intents WHERE id = ${i.id}`;
    expect(raw).toEqual({ a: big.toString(), ty: 'text' });
  });

  it('takes its state set from the caller and refuses a bad one', () => {
    expect(() => createPgIntentRepo(t.sql, { live: ["created') OR ('1'='1" as never] })).toThrow(/unknown intent state/);
    expect(() => createPgIntentRepo(t.sql, { live: [] })).toThrow(/empty state set/);
  });

  it('getForUpdate serializes two transactions on one intent: the second reads after the first commits', async () => {
    const i = storedIntent();
    await repo.insert(i);
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((r) => (releaseFirst = r));
    let firstLocked!: () => void;
    const locked = new Promise<void>((r) => (firstLocked = r));
    const order: string[] = [];
    const first = t.sql.begin(async (tx) => {
      const r = createPgIntentRepo(tx as unknown as Pg, LIVE);
      const row = (await r.getForUpdate(i.id))!;
      firstLocked();
      await firstHolds;
      await r.update({ ...row, metadata: { n: String(Number(row.metadata.n ?? 0) + 1) } });
      order.push('first committed');
    });
    await locked;
    const second = t.sql.begin(async (tx) => {
      const r = createPgIntentRepo(tx as unknown as Pg, LIVE);
      const row = (await r.getForUpdate(i.id))!;
      order.push(`second read n=${row.metadata.n}`);
      await r.update({ ...row, metadata: { n: String(Number(row.metadata.n ?? 0) + 1) } });
    });
    try {
      // The second is blocked on the row lock: it waits on a lock in the database, not yet done.
      await waitingOnLock(t.sql);
      expect(order).toEqual([]);
    } finally {
      releaseFirst();
      await Promise.all([first, second]);
    }
    expect(order).toEqual(['first committed', 'second read n=1']);
    expect((await repo.get(i.id))!.metadata).toEqual({ n: '2' });
  });
});
