// The intents repository on a real PostgreSQL with the real migrations: the SQLite store's cases
// (test/store/intents.test.ts) and the row lock that serializes one intent's transitions.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statesTagged } from '../../../machines/judge';
import { INTENT_STATES } from '../../../src/domain/intent';
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

describe('intents repo (PostgreSQL)', () => {
  it('round-trips every field, bigint amounts past 2^63 and times as numbers included', async () => {
    const big = 2n ** 64n + 123_456_789n;
    const full = storedIntent({
      amountBaseUnits: big, decimals: 18, fulfiller: '0x2222222222222222222222222222222222222222', reference: 'order-1',
      metadata: { a: '1', 'b c': 'ü✓' }, idempotencyKey: 'k1', retryRequired: true, pendingAtExpiry: true, txSignature: '0xabc',
      detectedAt: 1, ataRentLamports: 2039280, confirmedAt: 2, finalizedAt: 3, failureReason: 'revert', refundedBy: 'pi_r2',
      refundOf: 'pi_o', refunds: ['pi_r1', 'pi_r2'], buildData: { nonce: 5, nested: { x: [1, 2] } }, signedTransaction: 'AAAA',
      watchData: { sinceBlock: 10 }, snapshot: '{"status":"active","value":"pending"}', machineVersion: 1, state: 'pending',
      latePayment: { txSignature: '0xlate', amount: '1.5', amountBaseUnits: 2n ** 80n, from: '0x3333', detectedAt: 9 } as never,
    });
    await repo.insert(full);
    const got = (await repo.get(full.id))!;
    expect(got).toEqual(full);
    expect(got.amountBaseUnits).toBe(big);
    expect(typeof got.createdAt).toBe('number');
    // Stored as exact text, not a lossy number.
    const [raw] = await t.sql`SELECT amount_base_units AS a, pg_typeof(amount_base_units)::text AS ty FROM intents WHERE id = ${full.id}`;
    expect(raw).toEqual({ a: big.toString(), ty: 'text' });

    const minimal = storedIntent();
    await repo.insert(minimal);
    expect(await repo.get(minimal.id)).toEqual(minimal);
    expect(await repo.get('pi_missing')).toBeNull();
    expect(await repo.getForUpdate('pi_missing')).toBeNull();
    expect(await repo.getForUpdate(minimal.id)).toEqual(minimal);
  });

  it('update writes the whole row by id', async () => {
    const i = storedIntent();
    const other = storedIntent();
    await repo.insert(i);
    await repo.insert(other);
    const next = { ...i, state: 'confirmed' as const, confirmedAt: 5, metadata: { k: 'v' }, updatedAt: i.updatedAt + 1, amountBaseUnits: 2n ** 70n };
    await repo.update(next);
    expect(await repo.get(i.id)).toEqual(next);
    expect(await repo.get(other.id)).toEqual(other);
  });

  it('lists newest first with limit, cursor, state and reference filters, scoped to account and mode', async () => {
    const mine = Array.from({ length: 6 }, (_, n) => storedIntent({ reference: n % 2 === 0 ? 'even' : 'odd', state: n < 2 ? 'cancelled' : 'created' }));
    for (const i of mine) await repo.insert(i);
    await repo.insert(storedIntent({ accountId: 'acct_b' }));
    await repo.insert(storedIntent({ mode: 'live' }));
    const q = { accountId: 'acct_a', mode: 'test' as const };
    const newestFirst = [...mine].reverse().map((i) => i.id);
    const ids = async (p: Promise<Array<{ id: string }>>) => (await p).map((i) => i.id);

    expect(await ids(repo.list({ ...q, limit: 100 }))).toEqual(newestFirst);
    expect(await ids(repo.list({ ...q, limit: 2 }))).toEqual(newestFirst.slice(0, 2));
    const cursor = (await repo.seqOf(newestFirst[1]!, 'acct_a', 'test'))!;
    expect(typeof cursor).toBe('number');
    expect(await ids(repo.list({ ...q, limit: 100, beforeSeq: cursor }))).toEqual(newestFirst.slice(2));
    expect(await ids(repo.list({ ...q, limit: 100, state: 'cancelled' }))).toEqual([mine[1]!.id, mine[0]!.id]);
    expect(await ids(repo.list({ ...q, limit: 100, reference: 'odd' }))).toEqual([mine[5]!.id, mine[3]!.id, mine[1]!.id]);
    const before = (await repo.seqOf(mine[5]!.id, 'acct_a', 'test'))!;
    expect(await ids(repo.list({ ...q, limit: 100, reference: 'odd', state: 'created', beforeSeq: before }))).toEqual([mine[3]!.id]);
    expect(await repo.seqOf(mine[0]!.id, 'acct_b', 'test')).toBeNull();
    expect(await repo.seqOf(mine[0]!.id, 'acct_a', 'live')).toBeNull();
    // The operator: every account and mode.
    expect(await ids(repo.list({ limit: 100 }))).toHaveLength(8);
    expect(await repo.seqOf(mine[0]!.id)).toBeTypeOf('number');
  });

  it('listLive returns live states only, oldest first; the state set is the caller\'s', async () => {
    for (const state of INTENT_STATES) await repo.insert(storedIntent({ state, txSignature: `sig-${state}` }));
    expect((await repo.listLive()).map((i) => i.state)).toEqual([...statesTagged('live')]);
    expect(() => createPgIntentRepo(t.sql, { live: ["created') OR ('1'='1" as never] })).toThrow(/unknown intent state/);
    expect(() => createPgIntentRepo(t.sql, { live: [] })).toThrow(/empty state set/);
  });

  it('listLiveHeads is listLive narrowed to what the runtime follows, in the same order', async () => {
    const states = ['created', 'pending', 'confirmed', 'finalized', 'failed', 'expired', 'cancelled', 'dropped'] as const;
    for (const [n, state] of states.entries()) {
      await repo.insert(storedIntent({ state, expiresAt: 1_000 + n, pendingAtExpiry: n % 2 === 1, txSignature: n === 0 ? null : `sig-${state}` }));
    }
    const heads = await repo.listLiveHeads();
    expect(heads).toEqual(
      (await repo.listLive()).map((i) => ({ id: i.id, accountId: i.accountId, state: i.state, expiresAt: i.expiresAt, pendingAtExpiry: i.pendingAtExpiry, txSignature: i.txSignature })),
    );
    expect(heads.map((h) => [h.state, h.pendingAtExpiry, h.txSignature])).toEqual([
      ['created', false, null], ['pending', true, 'sig-pending'], ['confirmed', false, 'sig-confirmed'], ['dropped', true, 'sig-dropped'],
    ]);
  });

  it('finds by chain and tx signature (unique per chain), by Solana reference and by pay token', async () => {
    const a = storedIntent({ txSignature: '0xfeed', solanaReference: 'ref1' });
    await repo.insert(a);
    expect((await repo.findByTxSignature('eip155:84532', '0xfeed'))?.id).toBe(a.id);
    expect(await repo.findByTxSignature('eip155:42431', '0xfeed')).toBeNull();
    await expect(repo.insert(storedIntent({ txSignature: '0xfeed' }))).rejects.toThrow(/duplicate key/);
    await repo.insert(storedIntent({ txSignature: '0xfeed', chain: 'eip155:42431' }));
    await repo.insert(storedIntent());
    await repo.insert(storedIntent());
    expect((await repo.findBySolanaReference('ref1'))?.id).toBe(a.id);
    expect((await repo.findByPayToken(a.payToken!))?.id).toBe(a.id);
    expect(await repo.findByPayToken('pt_none')).toBeNull();
  });

  it('a look-up by a string holding U+0000 (PostgreSQL text cannot) finds nothing instead of failing, as on SQLite', async () => {
    const i = storedIntent({ reference: 'r1', txSignature: '0x1' });
    await repo.insert(i);
    const nul = `${i.id}\u0000`;
    expect(await repo.get(nul)).toBeNull();
    expect(await repo.getForUpdate(nul)).toBeNull();
    expect(await repo.seqOf(nul, 'acct_a', 'test')).toBeNull();
    expect(await repo.findByTxSignature(i.chain, '0x1\u0000')).toBeNull();
    expect(await repo.findByPayToken('\u0000')).toBeNull();
    expect(await repo.list({ accountId: 'acct_a', mode: 'test', reference: 'r1\u0000', limit: 10 })).toEqual([]);
    expect((await repo.list({ accountId: 'acct_a', mode: 'test', reference: 'r1', limit: 10 })).map((x) => x.id)).toEqual([i.id]);
  });

  it('ids are unique', async () => {
    const a = storedIntent();
    await repo.insert(a);
    await expect(repo.insert(storedIntent({ id: a.id }))).rejects.toThrow(/duplicate key/);
  });

  it('listByReceiver: live ones and those updated since, newest first; listClosedWithTransaction by updated_at', async () => {
    const r = { requestor: '0xaaaa', tokenAddress: '0xtoken' };
    const live = storedIntent({ ...r, state: 'pending', updatedAt: 10, txSignature: '0x1' });
    const closedOld = storedIntent({ ...r, state: 'expired', updatedAt: 5 });
    const closedNew = storedIntent({ ...r, state: 'failed', updatedAt: 50, txSignature: '0x2' });
    const finalized = storedIntent({ ...r, state: 'finalized', updatedAt: 40, txSignature: '0x3', finalizedAt: 40 });
    const elsewhere = storedIntent({ ...r, chain: 'eip155:8453', state: 'pending' });
    for (const i of [live, closedOld, closedNew, finalized, elsewhere]) await repo.insert(i);
    const got = await repo.listByReceiver('eip155:84532', r.requestor, r.tokenAddress, 20);
    expect(got.map((i) => i.id)).toEqual([finalized.id, closedNew.id, live.id]);
    // Closed ones only (the live scan hands the live ones to the chain watch), unfinalized, with a transaction.
    expect((await repo.listClosedWithTransaction('eip155:84532', 0)).map((i) => i.id)).toEqual([closedNew.id]);
    expect((await repo.listClosedWithTransaction('eip155:84532', 60)).map((i) => i.id)).toEqual([]);
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
