// Detection's matcher on a real PostgreSQL (real core, real migrations): a transfer matched by
// receiver locks only the intent it moves, never the other candidates of that receiver, and a
// write that holds that intent meanwhile is serialized with it (the matcher decides again on the
// row as that write left it). Interleavings are forced with row locks and observed in
// pg_stat_activity, never with sleeps.
import { SQL } from 'bun';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FoundTransfer } from '../../src/chains/types';
import { createCore, type Core } from '../../src/compose';
import { validate } from '../../src/config';
import { DEFAULT_CONFIG } from '../../src/config.types';
import { recordFoundTransfer } from '../../src/intents/record-found-transfer';
import type { StoredIntent } from '../../src/store/intents';
import { pendingIntent } from '../support/core';
import { freshDatabaseUrl } from '../support/postgres';

const CHAIN = 'eip155:84532';
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const REQUESTOR = '0x1111111111111111111111111111111111111111';
const PAYER = '0x2222222222222222222222222222222222222222';
const TX = `0x${'cd'.repeat(32)}`;

let core: Core;
let admin: SQL;
let dbUrl: string;

const transfer = (amount: bigint): FoundTransfer => ({
  chain: CHAIN,
  txSignature: TX,
  tokenAddress: USDC.toLowerCase(),
  from: PAYER,
  to: REQUESTOR,
  amountBaseUnits: amount,
  references: [],
  landedAt: Date.now(),
  commitment: 'confirmed',
  watchData: { from: PAYER, nonce: 0, sinceBlock: 1 },
});

/** A created intent paid to REQUESTOR in USDC. */
async function intentFor(accountId: string, amount: bigint): Promise<StoredIntent> {
  return pendingIntent(core, { accountId, chain: CHAIN, tokenAddress: USDC, requestor: REQUESTOR, amountBaseUnits: amount }, false);
}

/** Poll (with a deadline, never a fixed wait) until `settled` says so or a backend of this database waits on a lock `where` names. */
async function settledOrBlocked(settled: () => boolean, where: string, params: unknown[]): Promise<'settled' | 'blocked'> {
  const end = Date.now() + 30_000;
  for (;;) {
    if (settled()) return 'settled';
    const [r] = await admin.unsafe(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND ${where}`,
      params,
    );
    if (r.n > 0) return 'blocked';
    if (Date.now() > end) throw new Error('neither settled nor waiting on a lock');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const track = <T>(p: Promise<T>) => {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  return { p, settled: () => done };
};

beforeEach(async () => {
  dbUrl = await freshDatabaseUrl();
  core = await createCore(validate({ ...structuredClone(DEFAULT_CONFIG), db: dbUrl, logLevel: 'error' }));
  admin = new SQL({ url: dbUrl, max: 1 });
});
afterEach(async () => {
  await core.stop();
  await admin.close();
});

describe('recordFoundTransfer on PostgreSQL', () => {
  it('matches by receiver while another candidate of that receiver is locked by someone else', async () => {
    const account = await core.store.repos.accounts.create({ name: 'm', plan: 'pro' });
    const paid = await intentFor(account.id, 3_000_000n);
    const other = await intentFor(account.id, 5_000_000n);
    // Another transaction holds the other candidate (a write on it under way, on any instance).
    const holderPool = new SQL({ url: dbUrl, max: 1 });
    const holder = await holderPool.reserve();
    await holder`BEGIN`;
    await holder`SELECT id FROM intents WHERE id = ${other.id} FOR UPDATE`;
    const [{ pid }] = await holder`SELECT pg_backend_pid() AS pid`;
    try {
      const found = track(recordFoundTransfer(core.services, transfer(3_000_000n)));
      // Waiting for that lock would mean it locks candidates it does not move.
      expect(await settledOrBlocked(found.settled, '$1::int = ANY(pg_blocking_pids(pid))', [pid])).toBe('settled');
      expect((await found.p).payment).toMatchObject({ status: 'matched', intentId: paid.id });
    } finally {
      await holder`ROLLBACK`;
      holder.release();
      await holderPool.close();
    }
    expect(await core.store.repos.intents.get(paid.id)).toMatchObject({ state: 'confirmed', txSignature: TX, fulfiller: PAYER });
    expect(await core.store.repos.intents.get(other.id)).toMatchObject({ state: 'created', txSignature: null });
  });

  it('a write holding the matched intent goes first: the transfer is judged on the row it left (cancelled: a late payment)', async () => {
    const account = await core.store.repos.accounts.create({ name: 'm', plan: 'pro' });
    const intent = await intentFor(account.id, 3_000_000n);
    await intentFor(account.id, 5_000_000n);
    let locked!: () => void;
    let release!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const gate = new Promise<void>((r) => (release = r));
    // A cancel that has read (and so locked) the intent and not yet written.
    const cancel = core.runtime.write(async (tx) => {
      const cur = (await tx.get(intent.id))!;
      locked();
      await gate;
      return tx.apply(cur, { type: 'CANCEL', at: tx.now }, 'throw');
    });
    await isLocked;
    const found = track(recordFoundTransfer(core.services, transfer(3_000_000n)));
    try {
      // It read the candidates (the intent still payable) and now waits for the cancel's row lock.
      expect(await settledOrBlocked(found.settled, 'true', [])).toBe('blocked');
    } finally {
      release();
    }
    expect((await cancel)?.state).toBe('cancelled');
    expect((await found.p).payment).toMatchObject({ status: 'late', reason: 'intent_closed', intentId: intent.id });
    expect(await core.store.repos.intents.get(intent.id)).toMatchObject({
      state: 'cancelled',
      txSignature: null,
      latePayment: { txSignature: TX, amountBaseUnits: 3_000_000n },
    });
    expect((await core.store.repos.events.timeline(intent.id)).map((e) => e.type)).toEqual(['intent.created', 'intent.cancelled', 'intent.late_payment']);
  });
});
