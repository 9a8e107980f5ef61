// The intents repository on both engines (a real migrated SQLite file, a real PostgreSQL
// database) through the Store: the same cases, the same answers. What only one engine is asked
// stays beside it: test/store/intents.test.ts (partial indexes, INDEXED BY), test/store/pg/
// intents.test.ts (the row lock of getForUpdate).
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredIntent } from '../../src/store/intents';
import type { StoreRepos } from '../../src/store/store';
import { storedIntent } from '../support/db';
import { ENGINES, engineStore, type EngineStore } from '../support/engines';

let open: EngineStore | null = null;
afterEach(async () => {
  await open?.dispose();
  open = null;
});
const repoOf = async (engine: (typeof ENGINES)[number]): Promise<StoreRepos['intents']> => (open = await engineStore(engine)).store.repos.intents;
const ids = async (p: Promise<StoredIntent[]> | StoredIntent[]) => (await p).map((i) => i.id);
/** A unique index refusing a second row: SQLite throws at once, PostgreSQL rejects. */
const refusedAsDuplicate = (write: () => unknown) => expect((async () => write())()).rejects.toThrow(/UNIQUE|duplicate key/);
const ALL_STATES = ['created', 'pending', 'confirmed', 'finalized', 'failed', 'expired', 'cancelled', 'dropped'] as const;

describe.each(ENGINES)('intents repo (%s)', (engine) => {
  it('round-trips every field: bigint amounts past 2^64, JSON columns, booleans, times as numbers', async () => {
    const repo = await repoOf(engine);
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
    const minimal = storedIntent();
    await repo.insert(minimal);
    expect(await repo.get(minimal.id)).toEqual(minimal);
    expect(await repo.getForUpdate(minimal.id)).toEqual(minimal);
    expect(await repo.get('pi_missing')).toBeNull();
  });

  it('update writes the whole row by id', async () => {
    const repo = await repoOf(engine);
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
    const repo = await repoOf(engine);
    const mine = Array.from({ length: 6 }, (_, n) => storedIntent({ reference: n % 2 === 0 ? 'even' : 'odd', state: n < 2 ? 'cancelled' : 'created' }));
    for (const i of mine) await repo.insert(i);
    await repo.insert(storedIntent({ accountId: 'acct_b' }));
    await repo.insert(storedIntent({ mode: 'live' }));
    const q = { accountId: 'acct_a', mode: 'test' as const };
    const newestFirst = [...mine].reverse().map((i) => i.id);

    expect(await ids(repo.list({ ...q, limit: 100 }))).toEqual(newestFirst);
    expect(await ids(repo.list({ ...q, limit: 2 }))).toEqual(newestFirst.slice(0, 2));
    const cursor = (await repo.seqOf(newestFirst[1]!, 'acct_a', 'test'))!;
    expect(typeof cursor).toBe('number');
    expect(await ids(repo.list({ ...q, limit: 100, beforeSeq: cursor }))).toEqual(newestFirst.slice(2));
    expect(await ids(repo.list({ ...q, limit: 100, state: 'cancelled' }))).toEqual([mine[1]!.id, mine[0]!.id]);
    expect(await ids(repo.list({ ...q, limit: 100, reference: 'odd' }))).toEqual([mine[5]!.id, mine[3]!.id, mine[1]!.id]);
    const before = (await repo.seqOf(mine[5]!.id, 'acct_a', 'test'))!;
    expect(await ids(repo.list({ ...q, limit: 100, reference: 'odd', state: 'created', beforeSeq: before }))).toEqual([mine[3]!.id]);
    // seqOf is scoped: another account's or mode's intent is no cursor; the operator's is any.
    expect(await repo.seqOf(mine[0]!.id, 'acct_b', 'test')).toBeNull();
    expect(await repo.seqOf(mine[0]!.id, 'acct_a', 'live')).toBeNull();
    expect(await repo.seqOf(mine[0]!.id)).toBeTypeOf('number');
    expect(await ids(repo.list({ limit: 100 }))).toHaveLength(8);
  });

  it('listLive returns live states only, oldest first; liveHeadsPage reads the same intents narrowed to six columns', async () => {
    const repo = await repoOf(engine);
    for (const [n, state] of ALL_STATES.entries()) {
      await repo.insert(storedIntent({ state, expiresAt: 1_000 + n, pendingAtExpiry: n % 2 === 1, txSignature: n === 0 ? null : `sig-${state}` }));
    }
    const live = await repo.listLive();
    expect(live.map((i) => i.state)).toEqual(['created', 'pending', 'confirmed', 'dropped']);
    const page = await repo.liveHeadsPage(null, 100);
    expect(page.next).toBeNull();
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect([...page.heads].sort(byId)).toEqual(
      live.map((i) => ({ id: i.id, accountId: i.accountId, state: i.state, expiresAt: i.expiresAt, pendingAtExpiry: i.pendingAtExpiry, txSignature: i.txSignature })).sort(byId),
    );
    expect(page.heads.map((h) => [h.state, h.pendingAtExpiry, h.txSignature]).sort()).toEqual([
      ['confirmed', false, 'sig-confirmed'], ['created', false, null], ['dropped', true, 'sig-dropped'], ['pending', true, 'sig-pending'],
    ]);
  });

  it('liveHeadsPage: every live intent in exactly one page, a receiver\'s millisecond never split, moves between pages neither skip nor repeat one', async () => {
    const repo = await repoOf(engine);
    const at = (requestor: string, createdAt: number, state: StoredIntent['state'] = 'created') => storedIntent({ requestor, createdAt, state });
    // Receiver a: three intents of one millisecond (a group), in states that sort around each other.
    const a1 = at('0xa', 10, 'pending');
    const a2 = at('0xa', 10);
    const a3 = at('0xa', 10, 'dropped');
    const a4 = at('0xa', 11);
    const b1 = at('0xb', 5);
    const b2 = at('0xb', 6, 'confirmed');
    const closed = at('0xa', 10, 'expired');
    for (const i of [b2, a4, a1, closed, b1, a2, a3]) await repo.insert(i);
    const all = async (limit: number) => {
      const pages: string[][] = [];
      for (let p = await repo.liveHeadsPage(null, limit); ; p = await repo.liveHeadsPage(p.next, limit)) {
        pages.push(p.heads.map((h) => h.id));
        if (p.next === null) return pages;
      }
    };
    const sorted = (xs: string[]) => [...xs].sort();
    const live = sorted([a1.id, a2.id, a3.id, a4.id, b1.id, b2.id]);
    for (const limit of [1, 2, 3, 4, 100]) {
      const pages = await all(limit);
      expect(sorted(pages.flat())).toEqual(live);
      // The group of a at 10 is always whole in one page.
      const withGroup = pages.filter((p) => p.includes(a1.id) || p.includes(a2.id) || p.includes(a3.id));
      expect(withGroup).toHaveLength(1);
      expect(withGroup[0]).toEqual(expect.arrayContaining([a1.id, a2.id, a3.id]));
    }

    // Between two pages: a2 (already read) moves created -> confirmed, a4 (not yet read) closes,
    // b1 (already read) closes, and a new intent is created in a range not yet read. A cursor with
    // the state in it would have passed over a2 had it not been read yet; here each is read once,
    // as it is when its page is read.
    const first = await repo.liveHeadsPage(null, 3);
    expect(sorted(first.heads.map((h) => h.id))).toEqual(sorted([a1.id, a2.id, a3.id]));
    await repo.update({ ...a2, state: 'confirmed' });
    await repo.update({ ...a4, state: 'expired' });
    await repo.update({ ...b1, state: 'expired' });
    const fresh = at('0xb', 7);
    await repo.insert(fresh);
    const rest: string[] = [];
    for (let p = await repo.liveHeadsPage(first.next, 3); ; p = await repo.liveHeadsPage(p.next, 3)) {
      rest.push(...p.heads.map((h) => h.id));
      if (p.next === null) break;
    }
    expect(sorted(rest)).toEqual(sorted([b2.id, fresh.id]));
  });

  it('listByReceiver: live ones and those updated since, newest first; listClosedWithTransaction: closed, unfinalized, with a transaction, oldest update first', async () => {
    const repo = await repoOf(engine);
    const r = { requestor: '0xaaaa', tokenAddress: '0xtoken' };
    const live = storedIntent({ ...r, state: 'pending', updatedAt: 70, txSignature: '0x1' });
    const closedNew = storedIntent({ ...r, state: 'failed', updatedAt: 50, txSignature: '0x2' });
    const closedNewer = storedIntent({ ...r, state: 'expired', updatedAt: 60, txSignature: '0x4' });
    const finalized = storedIntent({ ...r, state: 'finalized', updatedAt: 40, txSignature: '0x3', finalizedAt: 40 });
    const noTx = storedIntent({ ...r, state: 'expired', updatedAt: 55 });
    const old = storedIntent({ ...r, state: 'failed', updatedAt: 5, txSignature: '0x5' });
    const elsewhere = storedIntent({ ...r, state: 'failed', updatedAt: 50, txSignature: '0x6', chain: 'eip155:8453' });
    for (const i of [live, noTx, finalized, old, elsewhere, closedNewer, closedNew]) await repo.insert(i);
    expect(await ids(repo.listByReceiver('eip155:84532', r.requestor, r.tokenAddress, 20))).toEqual([closedNew.id, closedNewer.id, finalized.id, noTx.id, live.id]);
    expect(await ids(repo.listClosedWithTransaction('eip155:84532', 20))).toEqual([closedNew.id, closedNewer.id]);
    expect(await ids(repo.listClosedWithTransaction('eip155:84532', 65))).toEqual([]);
  });

  it('listClosedWithTransaction follows updates: an intent joins when it closes holding a transaction, leaves once finalized', async () => {
    const repo = await repoOf(engine);
    const a = storedIntent({ state: 'pending', updatedAt: 10, txSignature: '0xa1' });
    const b = storedIntent({ state: 'created', updatedAt: 10 });
    for (const i of [a, b]) await repo.insert(i);
    expect(await ids(repo.listClosedWithTransaction('eip155:84532', 0))).toEqual([]);
    // a closes unpaid with its transaction recorded; b closes without one.
    await repo.update({ ...a, state: 'expired', pendingAtExpiry: true, updatedAt: 20 });
    await repo.update({ ...b, state: 'expired', updatedAt: 21 });
    expect(await ids(repo.listClosedWithTransaction('eip155:84532', 0))).toEqual([a.id]);
    // b is given a transaction after it closed (landed late); a's reaches finality.
    await repo.update({ ...b, state: 'expired', txSignature: '0xb1', updatedAt: 30 });
    await repo.update({ ...a, state: 'expired', pendingAtExpiry: true, finalizedAt: 40, updatedAt: 40 });
    expect(await ids(repo.listClosedWithTransaction('eip155:84532', 0))).toEqual([b.id]);
    expect(await ids(repo.listClosedWithTransaction('eip155:84532', 31))).toEqual([]);
  });

  it('finds by chain and tx signature (unique per chain), by Solana reference and by pay token; ids are unique', async () => {
    const repo = await repoOf(engine);
    const a = storedIntent({ txSignature: '0xfeed', solanaReference: 'ref1' });
    await repo.insert(a);
    expect((await repo.findByTxSignature('eip155:84532', '0xfeed'))?.id).toBe(a.id);
    expect(await repo.findByTxSignature('eip155:42431', '0xfeed')).toBeNull();
    await refusedAsDuplicate(() => repo.insert(storedIntent({ txSignature: '0xfeed' })));
    await refusedAsDuplicate(() => repo.insert(storedIntent({ id: a.id })));
    await repo.insert(storedIntent({ txSignature: '0xfeed', chain: 'eip155:42431' }));
    // Many intents without a signature are fine.
    await repo.insert(storedIntent());
    await repo.insert(storedIntent());
    expect((await repo.findBySolanaReference('ref1'))?.id).toBe(a.id);
    expect((await repo.findByPayToken(a.payToken!))?.id).toBe(a.id);
    expect(await repo.findByPayToken('pt_none')).toBeNull();
  });

  it('a look-up by a string holding U+0000 finds nothing (PostgreSQL text cannot hold it; SQLite stores none)', async () => {
    const repo = await repoOf(engine);
    const i = storedIntent({ reference: 'r1', txSignature: '0x1' });
    await repo.insert(i);
    const nul = `${i.id}\u0000`;
    expect(await repo.get(nul)).toBeNull();
    expect(await repo.getForUpdate(nul)).toBeNull();
    expect(await repo.seqOf(nul, 'acct_a', 'test')).toBeNull();
    expect(await repo.findByTxSignature(i.chain, '0x1\u0000')).toBeNull();
    expect(await repo.findByPayToken('\u0000')).toBeNull();
    expect(await repo.list({ accountId: 'acct_a', mode: 'test', reference: 'r1\u0000', limit: 10 })).toEqual([]);
    expect(await ids(repo.list({ accountId: 'acct_a', mode: 'test', reference: 'r1', limit: 10 }))).toEqual([i.id]);
  });
});
