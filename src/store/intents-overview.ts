// The operator's counts of intents across every account (the dashboard's accounts page). Its
// list of intents is the API's verb as the operator (src/intents/list-intents.ts).
//
// Counting them per page load read every intent (O(intents), ~10^6 index entries on a busy
// server). On SQLite two facts make the count cheap to keep, with nothing written per create:
// no intent row is ever deleted, and one writer at a time draws `seq` (the rowid: one more than
// the highest) and commits, so the intents committed after a read are exactly those above the
// highest seq it saw, whichever connection (the writer thread, another process) wrote them. So
// the counts are kept as of that seq and a load counts only the intents above it (a range of the
// rowid). The first load counts every intent, once, by account, mode and state: that one pass
// also hands the live view each account's ended-state counts as of the events read in the same
// snapshot (ended-counts.ts), so the first live snapshot of those accounts counts nothing again.
// PostgreSQL draws seqs out of commit order: pg/intents-overview.ts keeps its counts by the events horizon.
import type { IntentState, Mode } from '../domain/intent';
import type { Awaitable, Sync } from './awaitable';
import type { Db } from './db';
import { endedStates, type EndedCounts, type StateCounts } from './ended-counts';
import { maxEventSeq } from './live-events';

/**
 * The intents above a seq, by account: a range of the rowid. NOT INDEXED keeps the planner off
 * intents_account_list, which it prefers for the GROUP BY (no temporary b-tree) and then reads
 * whole: every intent again (32 ms instead of ~1 at 1M intents, bench/live-snapshot). The rowid
 * is no index: NOT INDEXED still searches it. Plan pinned by test/store/live-count-plans.test.ts.
 */
export const COUNT_SINCE_SQL = 'SELECT account_id AS accountId, COUNT(*) AS n, MAX(seq) AS top FROM intents NOT INDEXED WHERE seq > ? GROUP BY account_id';

/** The accounts x modes whose ended counts the first pass hands the live view (the largest; a small account counts fast anyway). */
const SEEDED = 100;

/** The operator's count of intents per account. */
export interface IntentsOverviewRepo {
  countsByAccount(): Awaitable<Map<string, number>>;
}

interface Kept {
  /** The highest intent seq counted. */
  seq: number;
  counts: Map<string, number>;
}

/** Every intent, by account, mode and state (intents_account_state, read once); the ended ones handed to `ended`. */
function countAll(db: Db, live: readonly IntentState[], ended: EndedCounts): Kept {
  const sqlite = db.sqlite;
  const seq = sqlite.query<{ s: number | null }, []>('SELECT MAX(seq) AS s FROM intents').get()?.s ?? 0;
  const eventSeq = maxEventSeq(db);
  const endedSet = new Set(endedStates(live).states);
  const counts = new Map<string, number>();
  const byPair = new Map<string, { accountId: string; mode: Mode; total: number; ended: StateCounts }>();
  const rows = sqlite
    .query<{ accountId: string; mode: Mode; state: IntentState; n: number }, []>(
      'SELECT account_id AS accountId, mode, state, COUNT(*) AS n FROM intents GROUP BY account_id, mode, state',
    )
    .all();
  for (const r of rows) {
    counts.set(r.accountId, (counts.get(r.accountId) ?? 0) + r.n);
    const k = `${r.mode}:${r.accountId}`;
    let p = byPair.get(k);
    if (!p) byPair.set(k, (p = { accountId: r.accountId, mode: r.mode, total: 0, ended: {} }));
    p.total += r.n;
    if (endedSet.has(r.state)) p.ended[r.state] = r.n;
  }
  // The same snapshot as the events' position: each count is exact as of eventSeq.
  for (const p of [...byPair.values()].sort((a, b) => b.total - a.total).slice(0, SEEDED)) ended.keep(p.accountId, p.mode, eventSeq, p.ended);
  return { seq, counts };
}

/** Add the intents committed above `kept.seq` (a range of the rowid). */
function countSince(db: Db, kept: Kept): Kept {
  const rows = db.sqlite
    .query<{ accountId: string; n: number; top: number }, [number]>(COUNT_SINCE_SQL)
    .all(kept.seq);
  if (rows.length === 0) return kept;
  const counts = new Map(kept.counts);
  let seq = kept.seq;
  for (const r of rows) {
    counts.set(r.accountId, (counts.get(r.accountId) ?? 0) + r.n);
    seq = Math.max(seq, r.top);
  }
  return { seq, counts };
}

/** `live`: the machine's live states; `ended`: the live view's kept ended counts (live-events.ts), which the first count fills. */
export function createIntentsOverviewRepo(db: Db, live: readonly IntentState[], ended: EndedCounts): Sync<IntentsOverviewRepo> {
  let kept: Kept | null = null;
  return {
    countsByAccount() {
      // One read snapshot: the highest seq and the counts (and the events' position) agree.
      kept = db.sqlite.transaction(() => (kept ? countSince(db, kept) : countAll(db, live, ended))).deferred();
      return new Map(kept.counts);
    },
  };
}
