// What the dashboard's live view reads: one account and mode's intents by state and its events
// in commit order, each with the state its intent had before it. Only committed rows are ever
// read: writes run synchronously inside the group committer's BEGIN..COMMIT, so no read on this
// connection can interleave with one, and other processes' writes are visible only once
// committed (WAL). `seq` is the cursor: SQLite has one writer at a time and assigns seq inside
// it, so a row with a lower seq can never become visible after one with a higher seq.
import type { IntentState, Mode } from '../domain/intent';
import type { Db } from './db';
import type { Awaitable, Sync } from './awaitable';
import { addEntries, endedStates, type EndedCounts, type StateCounts } from './ended-counts';
import { stateList } from './states';

export interface LiveEventRow {
  seq: number;
  id: string;
  type: string;
  intentId: string | null;
  createdAt: number;
  /** The intent's state after this event (null for events without an intent). */
  state: IntentState | null;
  /** Its state after the intent's previous event; null when this is the intent's first. */
  fromState: IntentState | null;
  amount: string | null;
  token: string | null;
  chain: string | null;
  reference: string | null;
}

export interface LiveIntentRow {
  id: string;
  state: IntentState;
  chain: string;
  token: string;
  decimals: number;
  amountBaseUnits: string;
  reference: string | null;
  createdAt: number;
}

export interface LiveSnapshot {
  /** Events after this seq are not in the snapshot: the stream starts here. */
  afterSeq: number;
  counts: Partial<Record<IntentState, number>>;
  intents: LiveIntentRow[];
  /** The newest events, oldest first. */
  events: LiveEventRow[];
}

const EVENT_COLUMNS = `e.seq, e.id, e.type, e.intent_id AS intentId, e.created_at AS createdAt,
  json_extract(e.payload, '$.data.intent.state') AS state,
  (SELECT json_extract(p.payload, '$.data.intent.state') FROM events p
    WHERE p.intent_id = e.intent_id AND p.seq < e.seq ORDER BY p.seq DESC LIMIT 1) AS fromState,
  json_extract(e.payload, '$.data.intent.amount') AS amount,
  json_extract(e.payload, '$.data.intent.token') AS token,
  json_extract(e.payload, '$.data.intent.chain') AS chain,
  json_extract(e.payload, '$.data.intent.reference') AS reference`;

/** The newest event position of the whole table (0 when empty): cheap, it is the rowid's max. */
export function maxEventSeq(db: Db): number {
  return db.sqlite.query<{ m: number | null }, []>('SELECT MAX(seq) AS m FROM events').get()?.m ?? 0;
}

/** Events of this account and mode (and of one intent, when given) after `afterSeq`, oldest first, at most `limit`. */
export function liveEventsAfter(db: Db, accountId: string, mode: Mode, afterSeq: number, limit: number, intentId: string | null = null): LiveEventRow[] {
  if (intentId !== null) {
    return db.sqlite
      .query<LiveEventRow, [string, string, string, number, number]>(
        `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.intent_id = ? AND e.account_id = ? AND e.mode = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`,
      )
      .all(intentId, accountId, mode, afterSeq, limit);
  }
  return db.sqlite
    .query<LiveEventRow, [string, string, number, number]>(
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.account_id = ? AND e.mode = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`,
    )
    .all(accountId, mode, afterSeq, limit);
}

/** The statements of the counts per state (the plans are pinned by test/store/live-counts.test.ts). */
export function countSql(live: readonly IntentState[]) {
  const ended = endedStates(live);
  return {
    // A range of intents_account_state per live state: the intents the account has open.
    live: `SELECT state, COUNT(*) AS n FROM intents WHERE account_id = ? AND mode = ? AND state IN (${stateList(live)}) GROUP BY state`,
    // Every ended intent of the account: once per account and mode, then kept (ended-counts.ts).
    ended: `SELECT state, COUNT(*) AS n FROM intents WHERE account_id = ? AND mode = ? AND state IN (${stateList(ended.states)}) GROUP BY state`,
    // The entries into an ended state between two event positions: a range of events_account.
    entered: `SELECT type, COUNT(*) AS n FROM events WHERE account_id = ? AND mode = ? AND seq > ? AND seq <= ?
      AND type IN (${ended.eventTypes.map((t) => `'${t}'`).join(',')}) GROUP BY type`,
  };
}

/**
 * Counts per state, the newest intents and events, and the seq they are current at: one read
 * snapshot. The ended states' counts come from `kept` plus the entries since (ended-counts.ts).
 */
export function liveSnapshot(db: Db, live: readonly IntentState[], kept: EndedCounts, accountId: string, mode: Mode, limit: number): LiveSnapshot {
  const sqlite = db.sqlite;
  const sql = countSql(live);
  return sqlite
    .transaction((): LiveSnapshot => {
      const afterSeq = maxEventSeq(db);
      const byState = (text: string) => {
        const out: StateCounts = {};
        for (const r of sqlite.query<{ state: IntentState; n: number }, [string, string]>(text).all(accountId, mode)) out[r.state] = r.n;
        return out;
      };
      const before = kept.usable(accountId, mode, afterSeq);
      const ended = before
        ? addEntries(before.counts, sqlite.query<{ type: string; n: number }, [string, string, number, number]>(sql.entered).all(accountId, mode, before.seq, afterSeq))
        : byState(sql.ended);
      kept.keep(accountId, mode, afterSeq, ended);
      const counts: LiveSnapshot['counts'] = { ...byState(sql.live) };
      for (const [state, n] of Object.entries(ended)) if (n > 0) counts[state as IntentState] = n;
      const intents = sqlite
        .query<LiveIntentRow, [string, string, number]>(
          `SELECT id, state, chain, token, decimals, amount_base_units AS amountBaseUnits, reference, created_at AS createdAt
             FROM intents WHERE account_id = ? AND mode = ? ORDER BY seq DESC LIMIT ?`,
        )
        .all(accountId, mode, limit);
      const events = sqlite
        .query<LiveEventRow, [string, string, number, number]>(
          `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.account_id = ? AND e.mode = ? AND e.seq <= ? ORDER BY e.seq DESC LIMIT ?`,
        )
        .all(accountId, mode, afterSeq, limit)
        .reverse();
      return { afterSeq, counts, intents, events };
    })
    .deferred();
}

/** What the live view reads: committed events after a seq, a snapshot, and the durability gate. */
export interface LiveEventRepo {
  maxSeq(): Awaitable<number>;
  after(accountId: string, mode: Mode, afterSeq: number, limit: number, intentId?: string | null): Awaitable<LiveEventRow[]>;
  snapshot(accountId: string, mode: Mode, limit: number): Awaitable<LiveSnapshot>;
  /** null, or a promise that settles once every commit so far is durable (show only those). */
  durable(): Promise<void> | null;
}

/**
 * `live`: the machine's live states (the rest are the ended ones, counted as ended-counts.ts says);
 * `kept`: their kept counts, which the accounts page's first count fills too (intents-overview.ts).
 */
export function createLiveEventRepo(db: Db, live: readonly IntentState[], kept: EndedCounts): Sync<LiveEventRepo, 'durable'> {
  return {
    maxSeq: () => maxEventSeq(db),
    after: (accountId, mode, afterSeq, limit, intentId = null) => liveEventsAfter(db, accountId, mode, afterSeq, limit, intentId),
    snapshot: (accountId, mode, limit) => liveSnapshot(db, live, kept, accountId, mode, limit),
    // Read at call time: the composition root installs the committer's gate after opening.
    durable: () => db.durable(),
  };
}
