// The intents repository on a real PostgreSQL with the real migrations: what only PostgreSQL is
// asked, above all the row lock that serializes one intent's transitions.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statesTagged } from '../../../machines/judge';
import { CLOSED_BEYOND } from '../../../src/store/intents';
import { createPgIntentRepo, type PgIntentRepo } from '../../../src/store/pg/intents';
import type { Pg } from '../../../src/store/pg/sql';
import { storedIntent } from '../../support/db';
import { INTENT_COLUMNS } from '../../../src/store/intent-row';
import { type PgTestDb, pgTestDb, waitingOnLock } from './db';

let t: PgTestDb;
let repo: PgIntentRepo;
const LIVE = { live: statesTagged('live') };
/** Every column but the unique ones a copied row needs its own of. */
const COLUMNS_BUT_KEYS = INTENT_COLUMNS.filter((c) => c !== 'id' && c !== 'pay_token');
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

  it('listClosedWithTransaction reads the closed-unfinalized-transaction partial index, not the closed rows of the look-back', async () => {
    // Its very statement, as the repository sends it.
    const sent: Array<{ text: string; params: unknown[] }> = [];
    const spy = { unsafe: (text: string, params: unknown[]) => (sent.push({ text, params }), t.sql.unsafe(text, params)) } as unknown as Pg;
    const template = storedIntent({ state: 'cancelled', updatedAt: 100 });
    await repo.insert(template);
    // 5,000 closed rows without a transaction (a copy of the template each) and one with one.
    await t.sql.unsafe(
      `INSERT INTO intents (id, pay_token, ${COLUMNS_BUT_KEYS.join(', ')})
       SELECT 'pi_c' || n, 'pt_c' || n, ${COLUMNS_BUT_KEYS.join(', ')} FROM intents, generate_series(1, 5000) AS n WHERE id = $1`,
      [template.id],
    );
    const withTx = storedIntent({ state: 'expired', updatedAt: 100, txSignature: '0xkept' });
    await repo.insert(withTx);
    await t.sql`ANALYZE intents`;
    expect((await createPgIntentRepo(spy, LIVE).listClosedWithTransaction('eip155:84532', 0)).map((i) => i.id)).toEqual([withTx.id]);
    const { text, params } = sent[0]!;
    const plan = (await t.sql.unsafe(`EXPLAIN ${text}`, params)).map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('intents_closed_unfinalized_tx');
  });

  it("listByReceiver past a full page: the live intents of the amount from intents_live_exact, the closed ones among the receiver's next rows read by seq, no table scan", async () => {
    const sent: Array<{ text: string; params: unknown[] }> = [];
    const spy = { unsafe: (text: string, params: unknown[]) => (sent.push({ text, params }), t.sql.unsafe(text, params)) } as unknown as Pg;
    const live = storedIntent({ state: 'created', amountBaseUnits: 1n });
    await repo.insert(live);
    // 100,000 intents of one receiver, each of its own amount (a third of them live).
    await t.sql.unsafe(
      `INSERT INTO intents (id, pay_token, ${COLUMNS_BUT_KEYS.join(', ')})
       SELECT 'pi_l' || n, 'pt_l' || n, ${COLUMNS_BUT_KEYS.map((c) => (c === 'amount_base_units' ? "(100 + n)::text" : c === 'state' ? "CASE WHEN n % 3 = 0 THEN 'created' ELSE 'expired' END" : c)).join(', ')}
       FROM intents, generate_series(1, 100000) AS n WHERE id = $1`,
      [live.id],
    );
    await t.sql`ANALYZE intents`;
    const got = await createPgIntentRepo(spy, LIVE).listByReceiver(live.chain, live.requestor, live.tokenAddress, 0, { amountBaseUnits: 1n, from: '0x2222222222222222222222222222222222222222' });
    expect(got.map((i) => i.id)).toContain(live.id);
    const planOf = async (x: { text: string; params: unknown[] }) => (await t.sql.unsafe(`EXPLAIN ${x.text}`, x.params)).map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    expect(await planOf(sent.find((x) => x.text.includes('amount_base_units = $4') && x.text.includes('LIMIT 1000'))!)).toContain('intents_live_exact');
    // The closed ones among the receiver's next rows: those rows first, by seq; never a scan of
    // the whole table for the amount (as one plain query the planner chose one: ~50 ms at 200k).
    const closed = await planOf(sent.find((x) => x.text.includes(`LIMIT ${CLOSED_BEYOND}`))!);
    expect(closed).toMatch(/Index Scan Backward using (intents_pkey|intents_receiver)/);
    expect(closed).not.toContain('Seq Scan');
  });

  it('liveHeadsPage seeks into intents_live and reads it in its own order: no sort of the live rows per page', async () => {
    // Its very statements, as the repository sends them.
    const sent: Array<{ text: string; params: unknown[] }> = [];
    const spy = { unsafe: (text: string, params: unknown[]) => (sent.push({ text, params }), t.sql.unsafe(text, params)) } as unknown as Pg;
    const live = storedIntent({ state: 'created', createdAt: 100 });
    const closed = storedIntent({ state: 'cancelled', createdAt: 100 });
    for (const i of [live, closed]) await repo.insert(i);
    // 5,000 copies of each (created_at spread: groups of a few), so the planner sees a real table.
    for (const template of [live, closed]) {
      await t.sql.unsafe(
        `INSERT INTO intents (id, pay_token, ${COLUMNS_BUT_KEYS.join(', ')})
         SELECT $2 || n, $3 || n, ${COLUMNS_BUT_KEYS.map((c) => (c === 'created_at' ? '100 + n / 4' : c)).join(', ')} FROM intents, generate_series(1, 5000) AS n WHERE id = $1`,
        [template.id, `pi_${template.state}`, `pt_${template.state}`],
      );
    }
    await t.sql`ANALYZE intents`;
    const pages = createPgIntentRepo(spy, LIVE);
    const first = await pages.liveHeadsPage(null, 100);
    await pages.liveHeadsPage(first.next, 100);
    const plans = await Promise.all(
      sent.filter((s) => s.text.includes('ORDER BY')).map(async ({ text, params }) => (await t.sql.unsafe(`EXPLAIN ${text}`, params)).map((r: Record<string, string>) => r['QUERY PLAN']).join('\n')),
    );
    expect(plans).toHaveLength(2);
    // A sort would read every live row for each page (the whole scan quadratic in live intents).
    for (const plan of plans) {
      expect(plan).toContain('Index Scan using intents_live');
      expect(plan).not.toContain('Sort');
    }
    expect(plans[1]).toMatch(/Index Cond: \(ROW\(chain, requestor, token_address, created_at\) > ROW\(/);
  });
});
