// What the dashboard's live view reads on PostgreSQL, as ../live-events.ts, with one difference
// that matters: on SQLite one writer at a time draws `seq` and commits, so seq order is commit
// order; on PostgreSQL concurrent transactions draw seqs and commit in any order, so an event
// with seq 10 can become visible after one with seq 11 has been read. A feed that moved its
// cursor to 11 would skip 10 for ever.
//
// So the feed only reads up to a HORIZON below which every seq is final (committed or rolled
// back), found from transaction ids, commit-order exact and without a schema change:
//   1. read L = the sequence's last drawn value (sequences are not transactional: every seq <= L
//      has been drawn already, by a transaction that holds an xid: the outbox takes one first);
//   2. then take a snapshot and note X = its xmax (every xid assigned so far is < X);
//   3. once a later snapshot's xmin (the oldest xid still running) is >= X, every transaction that
//      could hold a seq <= L has ended: L is the horizon.
// Each read notes a new mark (L, X) and raises the horizon to the newest mark already passed, so
// the feed lags by about one poll when transactions are short, and a transaction left open
// (idle in transaction with an xid) holds the feed back, but never makes it skip.
import type { IntentState, Mode } from '../../domain/intent';
import { addEntries, type EndedCounts, endedStates, type StateCounts } from '../ended-counts';
import type { LiveEventRepo, LiveEventRow, LiveIntentRow, LiveSnapshot } from '../live-events';
import { stateList } from '../states';
import { type Async, first, num, numbers, type Pg, rows } from './sql';

const state = (t: string) => `(${t}.payload::jsonb #>> '{data,intent,state}')`;
const field = (name: string) => `(e.payload::jsonb #>> '{data,intent,${name}}')`;
const EVENT_COLUMNS = `e.seq, e.id, e.type, e.intent_id AS "intentId", e.created_at AS "createdAt",
  ${state('e')} AS state,
  (SELECT ${state('p')} FROM events p WHERE p.intent_id = e.intent_id AND p.seq < e.seq ORDER BY p.seq DESC LIMIT 1) AS "fromState",
  ${field('amount')} AS amount, ${field('token')} AS token, ${field('chain')} AS chain, ${field('reference')} AS reference`;

const events = (list: Record<string, unknown>[]) => numbers<LiveEventRow>(list, ['seq', 'createdAt']);

/** The seq below which the events table is final; one per store (it keeps marks in memory). */
export interface SeqHorizon {
  /** Note a mark and return the horizon as of now (reads on the pool, never in a caller's transaction). */
  advance(): Promise<number>;
}

export function createSeqHorizon(pool: Pg): SeqHorizon {
  let horizon = 0;
  let marks: Array<{ last: number; xmax: bigint }> = [];
  let running: Promise<number> | null = null;
  const step = async (): Promise<number> => {
    // 1 then 2, two statements in this order: the snapshot of 2 is taken after L was read.
    const l = await first<{ l: string | null }>(pool, `SELECT pg_sequence_last_value(pg_get_serial_sequence('events', 'seq')::regclass) AS l`);
    const last = num(l?.l ?? 0);
    const s = await first<{ xmin: string; xmax: string }>(
      pool,
      'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin, pg_snapshot_xmax(pg_current_snapshot())::text AS xmax',
    );
    const xmin = BigInt(s!.xmin);
    marks.push({ last, xmax: BigInt(s!.xmax) });
    // Marks are in drawing order (L and X only grow), so the passed ones are a prefix.
    let passed = 0;
    while (passed < marks.length && marks[passed]!.xmax <= xmin) horizon = Math.max(horizon, marks[passed++]!.last);
    marks = marks.slice(passed);
    // A transaction left open stops marks from passing: keep the oldest and the newest only (a
    // newer mark in place of the ones between only delays the horizon, never skips).
    if (marks.length > 64) marks = [marks[0]!, marks[marks.length - 1]!];
    return horizon;
  };
  return {
    // Concurrent readers share one step (one dashboard tick, many streams).
    advance() {
      if (!running) running = step().finally(() => (running = null));
      return running;
    },
  };
}

export async function liveEventsAfter(
  q: Pg, horizon: number, accountId: string, mode: Mode, afterSeq: number, limit: number, intentId: string | null = null,
): Promise<LiveEventRow[]> {
  if (intentId !== null) {
    return events(
      await rows(
        q,
        `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.intent_id = $1 AND e.account_id = $2 AND e.mode = $3 AND e.seq > $4 AND e.seq <= $5
          ORDER BY e.seq LIMIT $6`,
        [intentId, accountId, mode, afterSeq, horizon, limit],
      ),
    );
  }
  return events(
    await rows(
      q,
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.account_id = $1 AND e.mode = $2 AND e.seq > $3 AND e.seq <= $4 ORDER BY e.seq LIMIT $5`,
      [accountId, mode, afterSeq, horizon, limit],
    ),
  );
}

/** The statements of the counts per state, as ../live-events.ts countSql (plans pinned by test/store/live-counts.test.ts). */
export function pgCountSql(live: readonly IntentState[]) {
  const ended = endedStates(live);
  return {
    live: `SELECT state, COUNT(*) AS n FROM intents WHERE account_id = $1 AND mode = $2 AND state IN (${stateList(live)}) GROUP BY state`,
    ended: `SELECT state, COUNT(*) AS n FROM intents WHERE account_id = $1 AND mode = $2 AND state IN (${stateList(ended.states)}) GROUP BY state`,
    entered: `SELECT type, COUNT(*) AS n FROM events WHERE account_id = $1 AND mode = $2 AND seq > $3 AND seq <= $4
      AND type IN (${ended.eventTypes.map((t) => `'${t}'`).join(',')}) GROUP BY type`,
  };
}

/**
 * Counts per state, the newest intents and the events up to the horizon: one read snapshot. The
 * counts are as of the horizon, like the events: the snapshot also sees commits whose events are
 * above it, which the stream applies once it reaches them (counted here too, they were applied
 * twice: a move committed while an older transaction was open showed one intent in two states).
 * So the moves of those events are taken back; the ended states' counts: ended-counts.ts.
 */
async function snapshotAt(
  q: Pg, afterSeq: number, live: readonly IntentState[], kept: EndedCounts, accountId: string, mode: Mode, limit: number,
): Promise<LiveSnapshot> {
  const sql = pgCountSql(live);
  const byState = async (text: string) => {
    const out: StateCounts = {};
    for (const r of await rows<{ state: IntentState; n: string }>(q, text, [accountId, mode])) out[r.state] = num(r.n);
    return out;
  };
  // The moves above the horizon this snapshot sees (few: the commits of the last moments).
  const above = await rows<{ state: IntentState | null; fromState: IntentState | null }>(
    q,
    `SELECT ${state('e')} AS state,
       (SELECT ${state('p')} FROM events p WHERE p.intent_id = e.intent_id AND p.seq < e.seq ORDER BY p.seq DESC LIMIT 1) AS "fromState"
     FROM events e WHERE e.account_id = $1 AND e.mode = $2 AND e.seq > $3 AND e.intent_id IS NOT NULL`,
    [accountId, mode, afterSeq],
  );
  const takeBack = (counts: StateCounts, only: (s: IntentState) => boolean) => {
    for (const m of above) {
      if (m.state !== null && only(m.state)) counts[m.state] = (counts[m.state] ?? 0) - 1;
      if (m.fromState !== null && only(m.fromState)) counts[m.fromState] = (counts[m.fromState] ?? 0) + 1;
    }
    return counts;
  };
  const isLive = (s: IntentState) => live.includes(s);
  const before = kept.usable(accountId, mode, afterSeq);
  const ended = before
    ? addEntries(before.counts, (await rows<{ type: string; n: string }>(q, sql.entered, [accountId, mode, before.seq, afterSeq])).map((r) => ({ type: r.type, n: num(r.n) })))
    : takeBack(await byState(sql.ended), (s) => !isLive(s));
  kept.keep(accountId, mode, afterSeq, ended);
  const counts: LiveSnapshot['counts'] = takeBack(await byState(sql.live), isLive);
  for (const [s, n] of Object.entries(counts)) if (n === 0) delete counts[s as IntentState];
  for (const [s, n] of Object.entries(ended)) if (n > 0) counts[s as IntentState] = n;
  const intents = numbers<LiveIntentRow>(
    await rows(
      q,
      `SELECT id, state, chain, token, decimals, amount_base_units AS "amountBaseUnits", reference, created_at AS "createdAt"
         FROM intents WHERE account_id = $1 AND mode = $2 ORDER BY seq DESC LIMIT $3`,
      [accountId, mode, limit],
    ),
    ['decimals', 'createdAt'],
  );
  const latest = events(
    await rows(
      q,
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.account_id = $1 AND e.mode = $2 AND e.seq <= $3 ORDER BY e.seq DESC LIMIT $4`,
      [accountId, mode, afterSeq, limit],
    ),
  ).reverse();
  return { afterSeq, counts, intents, events: latest };
}

/**
 * The live feed on PostgreSQL. `q` reads (pool or a transaction); `pool` and `horizon` are the
 * store's (the horizon is found outside any transaction). durable() is null: a commit is durable.
 */
export function createPgLiveEventRepo(
  q: Pg, pool: Pg, horizon: SeqHorizon, live: readonly IntentState[], kept: EndedCounts,
): Async<Omit<LiveEventRepo, 'durable'>> & Pick<LiveEventRepo, 'durable'> {
  return {
    maxSeq: () => horizon.advance(),
    after: async (accountId, mode, afterSeq, limit, intentId = null) =>
      liveEventsAfter(q, await horizon.advance(), accountId, mode, afterSeq, limit, intentId),
    async snapshot(accountId, mode, limit) {
      const h = await horizon.advance();
      // One REPEATABLE READ snapshot taken after the horizon was found: counts, intents and
      // events agree, and every event up to the horizon is in it.
      if (q !== pool) return snapshotAt(q, h, live, kept, accountId, mode, limit);
      return (await pool.begin('isolation level repeatable read read only', (tx) =>
        snapshotAt(tx as unknown as Pg, h, live, kept, accountId, mode, limit),
      )) as LiveSnapshot;
    },
    durable: () => null,
  };
}
