// The dashboard's live feed on a real PostgreSQL with the real migrations: what each event row
// carries (its intent's state before and after), the snapshot, and the one thing PostgreSQL adds:
// an event committed after one with a higher seq (concurrent transactions) is never skipped.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids';
import type { EventEnvelope, IntentState } from '../../../src/domain/intent';
import { toWire } from '../../../src/domain/intent';
import { createPgIntentRepo } from '../../../src/store/pg/intents';
import { createEndedCounts } from '../../../src/store/ended-counts';
import { createPgLiveEventRepo, createSeqHorizon } from '../../../src/store/pg/live-events';
import { createPgOutbox } from '../../../src/store/pg/outbox';
import type { Pg } from '../../../src/store/pg/sql';
import { storedIntent } from '../../support/db';
import { type PgTestDb, pgTestDb, until } from './db';
import { statesTagged } from '../../../machines/judge';

let t: PgTestDb;
beforeEach(async () => (t = await pgTestDb()));
afterEach(() => t.dispose());

const intent = storedIntent({ reference: 'order-7', amountBaseUnits: 2n ** 66n });
const envelope = (state: IntentState): EventEnvelope => ({
  eventId: newId('evt'),
  type: `intent.${state}` as EventEnvelope['type'],
  createdAt: new Date(5).toISOString(),
  livemode: false,
  data: { intent: toWire({ ...intent, state }) },
});
const append = (q: Pg, state: IntentState, createdAt = 5) =>
  createPgOutbox(q).append({ envelope: envelope(state), accountId: 'acct_a', mode: 'test', intentId: intent.id, createdAt });

describe('live events (PostgreSQL)', () => {
  it('events after a seq with their intent\'s state before and after; the snapshot; maxSeq', async () => {
    const live = createPgLiveEventRepo(t.sql, t.sql, createSeqHorizon(t.sql), statesTagged('live'), createEndedCounts());
    expect(await live.maxSeq()).toBe(0);
    await createPgIntentRepo(t.sql, { live: statesTagged('live') }).insert({ ...intent, state: 'pending' });
    await append(t.sql, 'created', 5);
    await append(t.sql, 'pending', 6);
    await createPgOutbox(t.sql).append({ envelope: { ...envelope('created'), type: 'payment.unmatched' }, accountId: 'acct_a', mode: 'live', intentId: null, createdAt: 7 });
    const rows = await until(() => live.after('acct_a', 'test', 0, 10), (r) => r.length === 2);
    expect(rows.map(({ id, ...r }) => r)).toEqual([
      { seq: 1, type: 'intent.created', intentId: intent.id, createdAt: 5, state: 'created', fromState: null, amount: toWire(intent).amount, token: 'USDC', chain: intent.chain, reference: 'order-7' },
      { seq: 2, type: 'intent.pending', intentId: intent.id, createdAt: 6, state: 'pending', fromState: 'created', amount: toWire(intent).amount, token: 'USDC', chain: intent.chain, reference: 'order-7' },
    ]);
    expect((await live.after('acct_a', 'test', 1, 10)).map((r) => r.seq)).toEqual([2]);
    expect((await live.after('acct_a', 'test', 0, 1)).map((r) => r.seq)).toEqual([1]);
    expect((await live.after('acct_a', 'test', 0, 10, 'pi_other')).map((r) => r.seq)).toEqual([]);
    expect((await live.after('acct_a', 'test', 0, 10, intent.id)).map((r) => r.seq)).toEqual([1, 2]);
    expect(await live.maxSeq()).toBe(3);

    const snap = await live.snapshot('acct_a', 'test', 1);
    expect(snap.afterSeq).toBe(3);
    expect(snap.counts).toEqual({ pending: 1 });
    expect(snap.intents).toEqual([
      { id: intent.id, state: 'pending', chain: intent.chain, token: 'USDC', decimals: 6, amountBaseUnits: (2n ** 66n).toString(), reference: 'order-7', createdAt: intent.createdAt },
    ]);
    expect(snap.events.map((e) => e.seq)).toEqual([2]);
    expect(live.durable()).toBeNull();
  });

  it('never skips an event that commits after one with a higher seq', async () => {
    const live = createPgLiveEventRepo(t.sql, t.sql, createSeqHorizon(t.sql), statesTagged('live'), createEndedCounts());
    let commitFirst!: () => void;
    const firstMayCommit = new Promise<void>((r) => (commitFirst = r));
    let drawn!: () => void;
    const firstDrew = new Promise<void>((r) => (drawn = r));
    // The first transaction draws seq 1 and stays open; the second draws seq 2 and commits.
    const first = t.sql.begin(async (tx) => {
      await append(tx as unknown as Pg, 'created');
      drawn();
      await firstMayCommit;
    });
    try {
      await firstDrew;
      await t.sql.begin((tx) => append(tx as unknown as Pg, 'pending'));
      const [{ n }] = await t.sql`SELECT count(*)::int AS n FROM events WHERE seq = 2`;
      expect(n).toBe(1);
      // Seq 2 is committed and visible, but seq 1 may still commit: the feed shows neither yet
      // (a feed that moved its cursor to 2 would never show 1).
      for (let i = 0; i < 5; i++) {
        expect(await live.after('acct_a', 'test', 0, 10)).toEqual([]);
        expect(await live.maxSeq()).toBe(0);
      }
    } finally {
      commitFirst();
      await first;
    }
    const rows = await until(() => live.after('acct_a', 'test', 0, 10), (r) => r.length === 2);
    expect(rows.map((r) => [r.seq, r.state])).toEqual([[1, 'created'], [2, 'pending']]);
  });

  it('the snapshot counts as of its horizon: a move committed above it is counted once, when the stream reaches it', async () => {
    const live = createPgLiveEventRepo(t.sql, t.sql, createSeqHorizon(t.sql), statesTagged('live'), createEndedCounts());
    const intents = (q: Pg) => createPgIntentRepo(q, { live: statesTagged('live') });
    const other = { ...storedIntent({ reference: null }), state: 'created' as const };
    const eventOf = (i: typeof intent, state: IntentState): EventEnvelope => ({ ...envelope(state), data: { intent: toWire({ ...i, state }) } });
    const appendFor = (q: Pg, i: typeof intent, state: IntentState) =>
      createPgOutbox(q).append({ envelope: eventOf(i, state), accountId: 'acct_a', mode: 'test', intentId: i.id, createdAt: 5 });
    // Two intents created (seq 1, 2): the horizon reaches them.
    await intents(t.sql).insert({ ...intent, state: 'created' });
    await appendFor(t.sql, intent, 'created');
    const ended = { ...storedIntent({ reference: null }), state: 'created' as const };
    await intents(t.sql).insert(ended);
    await appendFor(t.sql, ended, 'created');
    await until(() => live.maxSeq(), (h) => h === 2);
    let commitFirst!: () => void;
    const firstMayCommit = new Promise<void>((r) => (commitFirst = r));
    let drawn!: () => void;
    const firstDrew = new Promise<void>((r) => (drawn = r));
    // A third intent's creation draws seq 3 and stays open: the horizon stays at 2.
    const first = t.sql.begin(async (tx) => {
      await intents(tx as unknown as Pg).insert(other);
      await appendFor(tx as unknown as Pg, other, 'created');
      drawn();
      await firstMayCommit;
    });
    let snap: Awaited<ReturnType<typeof live.snapshot>>;
    try {
      await firstDrew;
      // Meanwhile the first intent moves to pending and the second expires (seq 4, 5), committed.
      await t.sql.begin(async (tx) => {
        await intents(tx as unknown as Pg).update({ ...intent, state: 'pending' });
        await appendFor(tx as unknown as Pg, intent, 'pending');
      });
      await t.sql.begin(async (tx) => {
        await intents(tx as unknown as Pg).update({ ...ended, state: 'expired' });
        await appendFor(tx as unknown as Pg, ended, 'expired');
      });
      snap = await live.snapshot('acct_a', 'test', 10);
      expect(snap.afterSeq).toBe(2);
      // As of seq 2: both created (the snapshot sees pending and expired, but their events come later).
      expect(snap.counts).toEqual({ created: 2 });
    } finally {
      commitFirst();
      await first;
    }
    // The live view applies each event the stream brings (from its state before to its state after).
    const counts: Record<string, number> = { ...snap.counts };
    const streamed = await until(() => live.after('acct_a', 'test', snap.afterSeq, 10), (r) => r.length === 3);
    for (const e of streamed) {
      if (e.fromState) counts[e.fromState] = (counts[e.fromState] ?? 0) - 1;
      if (e.state) counts[e.state] = (counts[e.state] ?? 0) + 1;
    }
    expect(Object.fromEntries(Object.entries(counts).filter(([, n]) => n !== 0))).toEqual({ created: 1, pending: 1, expired: 1 });
    // A later snapshot (the ended count kept and moved by the events since) agrees.
    expect((await until(() => live.snapshot('acct_a', 'test', 10), (x) => x.afterSeq === 5)).counts).toEqual({ created: 1, pending: 1, expired: 1 });
  });

  it('a rolled-back seq does not hold the feed back', async () => {
    const live = createPgLiveEventRepo(t.sql, t.sql, createSeqHorizon(t.sql), statesTagged('live'), createEndedCounts());
    await expect(
      t.sql.begin(async (tx) => {
        await append(tx as unknown as Pg, 'created');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await append(t.sql, 'pending');
    const rows = await until(() => live.after('acct_a', 'test', 0, 10), (r) => r.length === 1);
    expect(rows.map((r) => r.seq)).toEqual([2]);
  });
});
