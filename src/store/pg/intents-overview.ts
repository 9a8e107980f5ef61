// The operator's counts of intents per account on PostgreSQL, as ../intents-overview.ts: kept,
// not recounted per page load. SQLite keeps them as of the highest intent seq it counted; here
// that does not hold: an intent's seq is drawn (nextval, inside its INSERT) before its transaction
// has an xid, and transactions commit in any order, so one committed after a count can have a
// lower seq than what that count saw, and would be missed for ever.
//
// So the counts are kept as of the events' commit horizon (live-events.ts createSeqHorizon: below
// it every event seq is final), counting intent.created events: every intent has exactly one, in
// the transaction that inserts it (after its INSERT, so drawn with an xid held, as the horizon
// needs), and neither intents nor events are ever deleted. A load:
//   1. moves the horizon H (reads on the pool, before the statement below takes its snapshot);
//   2. one statement (one snapshot) counts, by account, the intent.created events above the kept
//      position K: those up to H are final and join the kept counts (now as of H); all of them,
//      those above H that this snapshot sees included, give the exact count as of the snapshot.
// So each load reads only the events since the last one (a range of the events' primary key).
// The first load counts every intent once (as now) and, in the same statement, the created events
// above H, so that its counts as of H are the total less those.
import type { IntentsOverviewRepo } from '../intents-overview';
import type { SeqHorizon } from './live-events';
import { type Async, num, type Pg, rows } from './sql';

/** The counts as of an events position (one per store: pg/open.ts PgShared). */
export interface KeptIntentCounts {
  kept: { seq: number; counts: Map<string, number> } | null;
}

export const createKeptIntentCounts = (): KeptIntentCounts => ({ kept: null });

/** Every intent by account, and the intent.created events above $1 (the first load). */
export const FIRST_COUNT_SQL = `SELECT account_id AS "accountId", COUNT(*) AS n, 0 AS above FROM intents GROUP BY account_id
  UNION ALL SELECT account_id, 0, COUNT(*) FROM events WHERE seq > $1 AND type = 'intent.created' GROUP BY account_id`;

/** The intent.created events above $1 by account: all ($1 < seq) and the final ones (seq <= $2). */
export const COUNT_SINCE_SQL = `SELECT account_id AS "accountId", COUNT(*) AS n, COUNT(*) FILTER (WHERE seq <= $2) AS final
  FROM events WHERE seq > $1 AND type = 'intent.created' GROUP BY account_id`;

const add = (m: Map<string, number>, k: string, n: number) => {
  if (n !== 0) m.set(k, (m.get(k) ?? 0) + n);
};

async function countFirst(q: Pg, h: number, keep: KeptIntentCounts): Promise<Map<string, number>> {
  const list = await rows<{ accountId: string; n: string; above: string }>(q, FIRST_COUNT_SQL, [h]);
  const total = new Map<string, number>();
  const asOfH = new Map<string, number>();
  for (const r of list) {
    add(total, r.accountId, num(r.n));
    add(asOfH, r.accountId, num(r.n) - num(r.above));
  }
  keep.kept ??= { seq: h, counts: asOfH };
  return total;
}

async function countSince(q: Pg, h: number, keep: KeptIntentCounts): Promise<Map<string, number>> {
  const from = keep.kept!;
  const upTo = Math.max(h, from.seq);
  const list = await rows<{ accountId: string; n: string; final: string }>(q, COUNT_SINCE_SQL, [from.seq, upTo]);
  const total = new Map(from.counts);
  const asOfH = new Map(from.counts);
  for (const r of list) {
    add(total, r.accountId, num(r.n));
    add(asOfH, r.accountId, num(r.final));
  }
  // Loads may overlap: whichever finishes last keeps its (exact) counts; never a lower position.
  if (!keep.kept || keep.kept.seq <= upTo) keep.kept = { seq: upTo, counts: asOfH };
  return total;
}

export function createPgIntentsOverviewRepo(q: Pg, horizon: SeqHorizon, keep: KeptIntentCounts): Async<IntentsOverviewRepo> {
  return {
    async countsByAccount() {
      const h = await horizon.advance();
      return keep.kept ? countSince(q, h, keep) : countFirst(q, h, keep);
    },
  };
}
