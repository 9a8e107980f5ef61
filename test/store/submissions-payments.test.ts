// Submissions, payments and idempotency keys on both engines (a real migrated SQLite file, a real
// PostgreSQL database) through the Store's repositories: the same cases, the same answers.
import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids';
import type { StoreRepos } from '../../src/store/store';
import { ENGINES, engineStore, type EngineStore } from '../support/engines';

let open: EngineStore | null = null;
afterEach(async () => {
  await open?.dispose();
  open = null;
});
const reposOf = async (engine: (typeof ENGINES)[number]): Promise<StoreRepos> => (open = await engineStore(engine)).store.repos;
/** A unique index refusing a second row: SQLite throws at once, PostgreSQL rejects. */
const refusedAsDuplicate = (write: () => unknown) => expect((async () => write())()).rejects.toThrow(/UNIQUE|duplicate key/);

describe.each(ENGINES)('submissions (%s)', (engine) => {
  const base = { intentId: 'pi_1', chain: 'eip155:84532', signer: '0xsigner', signedTransaction: 'AAAA', watchData: { nonce: 3 }, source: 'submit' as const, status: 'sending' as const, createdAt: 10 };

  it('records, marks, retries and lists open and sending rows oldest first', async () => {
    const { submissions: repo } = await reposOf(engine);
    const a = await repo.record({ ...base, txSignature: '0xa' });
    expect(a).toMatchObject({ ...base, txSignature: '0xa', outcome: null, updatedAt: 10 });
    expect(typeof a.seq).toBe('number');
    const b = await repo.record({ ...base, txSignature: '0xb', watchData: null, signedTransaction: null, source: 'txid' });
    await refusedAsDuplicate(() => repo.record({ ...base, txSignature: '0xa' }));
    expect(await repo.hasSending('pi_1')).toBe(true);
    expect((await repo.sending()).map((s) => s.txSignature)).toEqual(['0xa', '0xb']);

    await repo.markSent('eip155:84532', '0xa', 11);
    await repo.markRejected('eip155:84532', '0xb', 12);
    expect(await repo.hasSending('pi_1')).toBe(false);
    expect(await repo.sending()).toEqual([]);
    expect((await repo.openForIntent('pi_1')).map((s) => s.txSignature)).toEqual(['0xa']);
    expect(await repo.findByTx('eip155:84532', '0xb')).toMatchObject({ status: 'rejected', updatedAt: 12, seq: b.seq, watchData: null });

    const again = await repo.retry({ ...base, txSignature: '0xb', intentId: 'pi_2', createdAt: 20 });
    expect(again).toMatchObject({ seq: b.seq, intentId: 'pi_2', status: 'sending', outcome: null, createdAt: 10, updatedAt: 20, watchData: { nonce: 3 } });

    await repo.setOutcome('eip155:84532', '0xa', 'landed', 30);
    expect(await repo.openForIntent('pi_1')).toEqual([]);
    await repo.setOutcome('eip155:84532', '0xa', null, 31);
    expect((await repo.openForIntent('pi_1')).map((s) => s.txSignature)).toEqual(['0xa']);
    expect(await repo.findByTx('eip155:8453', '0xa')).toBeNull();
  });
});

describe.each(ENGINES)('payments (%s)', (engine) => {
  const payment = (over: Record<string, unknown> = {}) => ({
    id: newId('pay'), accountId: 'acct_a', mode: 'test' as const, chain: 'eip155:84532', token: 'USDC', tokenAddress: '0xtoken', decimals: 6,
    amountBaseUnits: 2n ** 90n + 1n, from: '0xfrom', to: '0xto', txSignature: newId('pay'), intentId: null as string | null,
    status: 'unmatched' as const, reason: 'no_open_intent' as const, detectedAt: 1_700_000_000_123, ...over,
  });

  it('round-trips (amounts past 2^64), is unique per transaction, lists newest first with filters and settles', async () => {
    const { payments: repo } = await reposOf(engine);
    const a = payment();
    await repo.insert(a);
    const got = (await repo.get(a.id))!;
    expect(got).toEqual({ ...a, seq: got.seq });
    expect(typeof got.seq).toBe('number');
    expect(await repo.findByTx('eip155:84532', a.txSignature)).toEqual(got);
    await refusedAsDuplicate(() => repo.insert(payment({ txSignature: a.txSignature })));
    const b = payment({ status: 'matched', reason: null, intentId: 'pi_1' });
    const c = payment({ accountId: 'acct_b' });
    await repo.insert(b);
    await repo.insert(c);
    const ids = async (q: Parameters<typeof repo.list>[0]) => (await repo.list(q)).map((p) => p.id);
    expect(await ids({ accountId: 'acct_a', mode: 'test', limit: 10 })).toEqual([b.id, a.id]);
    expect(await ids({ limit: 10 })).toEqual([c.id, b.id, a.id]);
    expect(await ids({ accountId: 'acct_a', status: 'unmatched', limit: 10 })).toEqual([a.id]);
    expect(await ids({ limit: 10, beforeSeq: (await repo.get(b.id))!.seq })).toEqual([a.id]);
    expect(await ids({ limit: 1 })).toEqual([c.id]);
    // Settled by an intent of another account: the record moves to that intent's ledger.
    await repo.settle(a.id, { id: 'pi_9', accountId: 'acct_b', mode: 'test' });
    expect(await repo.get(a.id)).toMatchObject({ status: 'matched', reason: null, intentId: 'pi_9', accountId: 'acct_b', mode: 'test' });
    expect(await ids({ accountId: 'acct_a', mode: 'test', limit: 10 })).toEqual([b.id]);
  });
});

describe.each(ENGINES)('idempotency keys (%s)', (engine) => {
  const r = { requestHash: 'h1', responseStatus: 201, responseBody: '{"intent":{"id":"pi_1"}}' };

  it('returns the stored response until it expires, scoped per account and mode, and purges expired ones', async () => {
    const { idempotency: repo } = await reposOf(engine);
    await repo.put('acct_a', 'test', 'key-1', r, 1000, 10);
    expect(await repo.get('acct_a', 'test', 'key-1', 1000)).toEqual(r);
    expect(await repo.get('acct_a', 'test', 'key-1', 10_999)).toEqual(r);
    expect(await repo.get('acct_a', 'test', 'key-1', 11_000)).toBeNull();
    expect(await repo.get('acct_a', 'live', 'key-1', 1000)).toBeNull();
    expect(await repo.get('acct_b', 'test', 'key-1', 1000)).toBeNull();
    expect(await repo.get('acct_a', 'test', 'key-2', 1000)).toBeNull();

    await repo.put('acct_b', 'test', 'key-1', { ...r, requestHash: 'h2' }, 1000, 100);
    expect((await repo.get('acct_b', 'test', 'key-1', 1000))?.requestHash).toBe('h2');
    expect((await repo.get('acct_a', 'test', 'key-1', 1000))?.requestHash).toBe('h1');

    expect(await repo.purge(10_999)).toBe(0);
    expect(await repo.purge(11_000)).toBe(1);
    expect((await repo.get('acct_b', 'test', 'key-1', 11_000))?.requestHash).toBe('h2');
    // An expired key can be used again.
    expect(await repo.put('acct_a', 'test', 'key-1', { ...r, requestHash: 'h3' }, 20_000, 10)).toBe(true);
    expect((await repo.get('acct_a', 'test', 'key-1', 20_000))?.requestHash).toBe('h3');
  });

  it('never overwrites a key that still holds a response: the second put writes nothing and says so', async () => {
    const { idempotency: repo } = await reposOf(engine);
    expect(await repo.put('acct_a', 'test', 'k', r, 1000, 10)).toBe(true);
    expect(await repo.put('acct_a', 'test', 'k', { ...r, requestHash: 'h2', responseBody: '{}' }, 5000, 10)).toBe(false);
    expect(await repo.get('acct_a', 'test', 'k', 5000)).toEqual(r);
  });
});
