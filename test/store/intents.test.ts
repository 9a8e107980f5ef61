// The intents repository on a real SQLite file with the real migrations.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIntentRepo } from '../../src/store/intents';
import { createDetectionRepo } from '../../src/store/detection';
import { INTENT_STATES } from '../../src/domain/intent';
import { statesTagged } from '../../machines/judge';
import { storedIntent, tempDb, type TempDb } from '../support/db';

let t: TempDb;
let repo: ReturnType<typeof createIntentRepo>;
beforeEach(() => {
  t = tempDb();
  repo = createIntentRepo(t.db.sqlite, { live: statesTagged('live') });
});
afterEach(() => t.dispose());

describe('intents repo', () => {
  it('round-trips every field, bigint amounts past 2^63 included', () => {
    const big = 2n ** 64n + 123_456_789n;
    const full = storedIntent({
      amountBaseUnits: big,
      decimals: 18,
      fulfiller: '0x2222222222222222222222222222222222222222',
      reference: 'order-1',
      metadata: { a: '1', 'b c': 'ü✓' },
      idempotencyKey: 'k1',
      retryRequired: true,
      pendingAtExpiry: true,
      txSignature: '0xabc',
      detectedAt: 1,
      ataRentLamports: 2039280,
      confirmedAt: 2,
      finalizedAt: 3,
      failureReason: 'revert',
      refundedBy: 'pi_r2',
      refundOf: 'pi_o',
      refunds: ['pi_r1', 'pi_r2'],
      buildData: { nonce: 5, nested: { x: [1, 2] } },
      signedTransaction: 'AAAA',
      watchData: { sinceBlock: 10 },
      snapshot: '{"status":"active","value":"pending"}',
      machineVersion: 1,
      state: 'pending',
    });
    repo.insert(full);
    const got = repo.get(full.id)!;
    expect(got).toEqual(full);
    expect(typeof got.amountBaseUnits).toBe('bigint');
    expect(got.amountBaseUnits).toBe(big);
    // Stored as exact text, not a lossy REAL.
    const raw = t.db.sqlite.query('SELECT amount_base_units AS a, typeof(amount_base_units) AS ty FROM intents WHERE id = ?').get(full.id) as { a: string; ty: string };
    expect(raw).toEqual({ a: big.toString(), ty: 'text' });

    const minimal = storedIntent();
    repo.insert(minimal);
    expect(repo.get(minimal.id)).toEqual(minimal);
    expect(repo.get('pi_missing')).toBeNull();
  });

  it('update writes the whole row by id', () => {
    const i = storedIntent();
    const other = storedIntent();
    repo.insert(i);
    repo.insert(other);
    const next = { ...i, state: 'confirmed' as const, confirmedAt: 5, metadata: { k: 'v' }, updatedAt: i.updatedAt + 1, amountBaseUnits: 2n ** 70n };
    repo.update(next);
    expect(repo.get(i.id)).toEqual(next);
    expect(repo.get(other.id)).toEqual(other);
  });

  it('lists newest first with limit, cursor, state and reference filters, scoped to account and mode', () => {
    const mine = Array.from({ length: 6 }, (_, n) =>
      storedIntent({ reference: n % 2 === 0 ? 'even' : 'odd', state: n < 2 ? 'cancelled' : 'created' }),
    );
    for (const i of mine) repo.insert(i);
    repo.insert(storedIntent({ accountId: 'acct_b' }));
    repo.insert(storedIntent({ mode: 'live' }));
    const q = { accountId: 'acct_a', mode: 'test' as const };
    const newestFirst = [...mine].reverse().map((i) => i.id);

    expect(repo.list({ ...q, limit: 100 }).map((i) => i.id)).toEqual(newestFirst);
    expect(repo.list({ ...q, limit: 2 }).map((i) => i.id)).toEqual(newestFirst.slice(0, 2));
    const cursor = repo.seqOf(newestFirst[1]!, 'acct_a', 'test')!;
    expect(repo.list({ ...q, limit: 100, beforeSeq: cursor }).map((i) => i.id)).toEqual(newestFirst.slice(2));
    expect(repo.list({ ...q, limit: 100, state: 'cancelled' }).map((i) => i.id)).toEqual([mine[1]!.id, mine[0]!.id]);
    expect(repo.list({ ...q, limit: 100, reference: 'odd' }).map((i) => i.id)).toEqual([mine[5]!.id, mine[3]!.id, mine[1]!.id]);
    expect(repo.list({ ...q, limit: 100, reference: 'odd', state: 'created', beforeSeq: repo.seqOf(mine[5]!.id, 'acct_a', 'test')! }).map((i) => i.id)).toEqual([mine[3]!.id]);
    // seqOf is scoped: another account's or mode's intent is no cursor.
    expect(repo.seqOf(mine[0]!.id, 'acct_b', 'test')).toBeNull();
    expect(repo.seqOf(mine[0]!.id, 'acct_a', 'live')).toBeNull();
  });

  it('listLive returns live states only, oldest first', () => {
    const states = ['created', 'pending', 'confirmed', 'finalized', 'failed', 'expired', 'cancelled', 'dropped'] as const;
    const rows = states.map((state) => storedIntent({ state, txSignature: `sig-${state}` }));
    for (const r of rows) repo.insert(r);
    expect(repo.listLive().map((i) => i.state)).toEqual(['created', 'pending', 'confirmed', 'dropped']);
  });

  it('listLiveHeads is listLive narrowed to what the runtime follows, in the same order', () => {
    const states = ['created', 'pending', 'confirmed', 'finalized', 'failed', 'expired', 'cancelled', 'dropped'] as const;
    for (const [n, state] of states.entries()) {
      repo.insert(storedIntent({ state, expiresAt: 1_000 + n, pendingAtExpiry: n % 2 === 1, txSignature: n === 0 ? null : `sig-${state}` }));
    }
    const heads = repo.listLiveHeads();
    expect(heads).toEqual(
      repo.listLive().map((i) => ({ id: i.id, accountId: i.accountId, state: i.state, expiresAt: i.expiresAt, pendingAtExpiry: i.pendingAtExpiry, txSignature: i.txSignature })),
    );
    expect(heads.map((h) => [h.state, h.pendingAtExpiry, h.txSignature])).toEqual([
      ['created', false, null], ['pending', true, 'sig-pending'], ['confirmed', false, 'sig-confirmed'], ['dropped', true, 'sig-dropped'],
    ]);
  });

  it('listClosedWithTransaction: closed, unfinalized intents of the chain with a transaction, updated since, oldest update first', () => {
    const closedNew = storedIntent({ state: 'failed', updatedAt: 50, txSignature: '0x2' });
    const closedNewer = storedIntent({ state: 'expired', updatedAt: 60, txSignature: '0x4' });
    for (const i of [
      storedIntent({ state: 'pending', updatedAt: 70, txSignature: '0x1' }), // live: the live scan's
      storedIntent({ state: 'expired', updatedAt: 55 }), // no transaction
      storedIntent({ state: 'finalized', updatedAt: 40, txSignature: '0x3', finalizedAt: 40 }),
      storedIntent({ state: 'failed', updatedAt: 5, txSignature: '0x5' }), // before `since`
      storedIntent({ state: 'failed', updatedAt: 50, txSignature: '0x6', chain: 'eip155:8453' }),
      closedNewer,
      closedNew,
    ]) {
      repo.insert(i);
    }
    expect(repo.listClosedWithTransaction('eip155:84532', 20).map((i) => i.id)).toEqual([closedNew.id, closedNewer.id]);
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
    const live = statesTagged('live').map((x) => `'${x}'`).join(',');
    expect(sqlOf('intents_live')).toContain(`WHERE state IN (${live})`);
    expect(sqlOf('intents_chain_updated')).toContain(`WHERE state NOT IN (${live})`);
    // Detection's INDEXED BY intents_live refuses to prepare when its live list no longer matches.
    expect(() => createDetectionRepo(t.db.sqlite, { live: statesTagged('live'), watching: statesTagged('watching') })).not.toThrow();
    expect(() => createDetectionRepo(t.db.sqlite, { live: ['pending'], watching: statesTagged('watching') })).toThrow(/no query solution/);
  });

  it('finds by chain and tx signature; a signature is unique per chain', () => {
    const a = storedIntent({ txSignature: '0xfeed' });
    repo.insert(a);
    expect(repo.findByTxSignature('eip155:84532', '0xfeed')?.id).toBe(a.id);
    expect(repo.findByTxSignature('eip155:42431', '0xfeed')).toBeNull();
    expect(() => repo.insert(storedIntent({ txSignature: '0xfeed' }))).toThrow(/UNIQUE/);
    repo.insert(storedIntent({ txSignature: '0xfeed', chain: 'eip155:42431' }));
    // Many intents without a signature are fine.
    repo.insert(storedIntent());
    repo.insert(storedIntent());
  });

  it('ids are unique', () => {
    const a = storedIntent();
    repo.insert(a);
    expect(() => repo.insert(storedIntent({ id: a.id }))).toThrow(/UNIQUE/);
  });
});
