// What the payment detectors read and write (contract section 11): the receivers to watch per
// network, scan cursors (chain_cursors), and the matched payments still short of finality.
import type { Database } from 'bun:sqlite';
import type { IntentState } from '../domain/intent';
import { stateIs, stateIsNot, stateList } from './states';
import type { Awaitable, Sync } from './awaitable';

/** One receiving account to watch: a requestor and token on a network, and the intents' references. */
export interface WatchedReceiver {
  requestor: string;
  tokenAddress: string;
  /** Earliest createdAt among the intents that make it watched: older transfers cannot pay them. */
  since: number;
}

export interface WatchedReference {
  reference: string;
  requestor: string;
  tokenAddress: string;
  createdAt: number;
}

/**
 * A matched payment whose intent has not reached finality yet, or an ambiguous one that a submit by
 * txSignature has since tied to an intent: the detector reports it again so both get settled.
 */
export interface UnfinalizedMatch {
  txSignature: string;
  intentId: string;
  tokenAddress: string;
  from: string;
  to: string;
  amountBaseUnits: bigint;
}

/** Where a page of the closed half ended (its last index entry); opaque to callers. */
export type ClosedCursor = ReadonlyArray<string | number>;

/** Receivers of one page of intents closed since a time (each with its earliest createdAt in the page). */
export interface ClosedReceiversPage {
  receivers: WatchedReceiver[];
  /** Where the next page starts; null when this page reached the end. */
  next: ClosedCursor | null;
}

export interface DetectionRepo {
  receivers(chain: string, closedSince: number): Awaitable<WatchedReceiver[]>;
  /**
   * The closed half of `receivers` read at most `limit` intents at a time, in the index's order
   * (updated_at first), from `after` (null: from the start). An intent closed or updated between two
   * pages moves to a later updated_at, so it is read in a later page: read the live half first.
   * PostgreSQL answers in one page (grouped in its own process, the event loop only waits).
   */
  closedReceiversPage(chain: string, closedSince: number, after: ClosedCursor | null, limit: number): Awaitable<ClosedReceiversPage>;
  references(chain: string, closedSince: number): Awaitable<WatchedReference[]>;
  getCursor(chain: string, key: string): Awaitable<string | null>;
  setCursor(chain: string, key: string, value: string, now: number): Awaitable<void>;
  unfinalizedMatches(chain: string): Awaitable<UnfinalizedMatch[]>;
}

// Live states plus anything touched within the look-back (closed, or paid and watched for duplicates),
// as two disjoint index searches: the live partial index by chain, then the closed rows' partial
// index by chain + updated_at. Both cover the receivers' columns, so a poll reads no table row
// for them; never a scan of history, and a live intent is read once, not twice.
// `live` and `closed` are stateIs / stateIsNot of the caller's live set (the machine's live tag):
// the very conditions of the two partial indexes (schema.ts LIVE, NOT_LIVE).
const watched = (live: string, closed: string, cols: string) =>
  `SELECT ${cols} FROM intents INDEXED BY intents_live WHERE ${live} AND chain = $chain
   UNION ALL SELECT ${cols} FROM intents INDEXED BY intents_chain_updated
    WHERE ${closed} AND chain = $chain AND updated_at >= $since`;

/** The machine's tag sets the queries need (compose passes statesTagged of each). */
export interface DetectionStates {
  /** Not terminal (must equal the partial index intents_live, which INDEXED BY insists on). */
  live: readonly IntentState[];
  /** The chain reports on its transaction (pending, confirmed): a matched payment not final yet. */
  watching: readonly IntentState[];
}

type Group = WatchedReceiver;
const key = (g: Group) => `${g.requestor}\u0000${g.tokenAddress}`;
const byReceiver = (a: Group, b: Group) =>
  a.requestor < b.requestor ? -1 : a.requestor > b.requestor ? 1 : a.tokenAddress < b.tokenAddress ? -1 : a.tokenAddress > b.tokenAddress ? 1 : 0;

export function createDetectionRepo(sqlite: Database, states: DetectionStates): Sync<DetectionRepo> {
  const live = stateIs(states.live);
  const closed = stateIsNot(states.live);
  // Live half, a skip scan of intents_live (ordered by receiver then created_at): the first entry
  // of each receiver is its earliest live intent. Two index seeks per receiver, so the cost follows
  // receivers, not live intents (100k live intents on one receiver: a few seeks, not 100k entries).
  // Not a row-value range: SQLite reads `(requestor, token_address) > (?, ?)` as requestor >= ? and
  // filters the rest, i.e. every entry of the current receiver again.
  const liveGroup = `SELECT requestor, token_address AS tokenAddress, created_at AS since FROM intents INDEXED BY intents_live
     WHERE ${live} AND chain = ?1`;
  const firstLive = sqlite.prepare<Group, [string]>(`${liveGroup} ORDER BY requestor, token_address, created_at LIMIT 1`);
  const nextTokenLive = sqlite.prepare<Group, [string, string, string]>(
    `${liveGroup} AND requestor = ?2 AND token_address > ?3 ORDER BY token_address, created_at LIMIT 1`,
  );
  const nextRequestorLive = sqlite.prepare<Group, [string, string]>(
    `${liveGroup} AND requestor > ?2 ORDER BY requestor, token_address, created_at LIMIT 1`,
  );
  const nextLive = (chain: string, g: Group) =>
    nextTokenLive.get(chain, g.requestor, g.tokenAddress) ?? nextRequestorLive.get(chain, g.requestor);
  // Closed half: receivers of intents closed within the look-back (index-only, proportional to them).
  const closedGroups = sqlite.prepare<Group, [string, number]>(
    `SELECT requestor, token_address AS tokenAddress, MIN(created_at) AS since FROM intents INDEXED BY intents_chain_updated
      WHERE ${closed} AND chain = ?1 AND updated_at >= ?2 GROUP BY requestor, token_address`,
  );
  const receivers = (chain: string, since: number): WatchedReceiver[] => {
    const groups = new Map<string, Group>();
    for (let g = firstLive.get(chain); g; g = nextLive(chain, g)) groups.set(key(g), g);
    for (const g of closedGroups.all(chain, since)) {
      const cur = groups.get(key(g));
      if (!cur || g.since < cur.since) groups.set(key(g), g);
    }
    // The order a single GROUP BY over both halves gave (receiver, then token).
    return [...groups.values()].sort(byReceiver);
  };
  // Closed half in pages: a keyset over intents_chain_updated's columns (then rowid, the index's
  // last key). SQLite seeks a row-value range on its first column only and filters the rest, so
  // "after the cursor" is asked level by level, each an exact seek: same prefix and a greater next
  // column, from the longest prefix (the cursor's ties, by rowid) to the shortest (a later updated_at).
  const keyCols = ['updated_at', 'requestor', 'token_address', 'created_at', 'state', 'rowid'];
  const closedFrom = `SELECT ${keyCols.join(', ')} FROM intents INDEXED BY intents_chain_updated WHERE ${closed} AND chain = ?`;
  const firstClosed = sqlite.prepare<unknown[], [string, number, number]>(
    `${closedFrom} AND updated_at >= ? ORDER BY ${keyCols.join(', ')} LIMIT ?`,
  );
  const afterClosed = keyCols.map((col, level) =>
    sqlite.prepare<unknown[], Array<string | number>>(
      `${closedFrom} ${keyCols
        .slice(0, level)
        .map((c) => `AND ${c} = ? `)
        .join('')}AND ${col} > ? ORDER BY ${keyCols.slice(level).join(', ')} LIMIT ?`,
    ),
  );
  const closedReceiversPage = (chain: string, since: number, after: ClosedCursor | null, limit: number) => {
    let rows: Array<Array<string | number>>;
    if (after === null) rows = firstClosed.values(chain, since, limit) as Array<Array<string | number>>;
    else {
      rows = [];
      for (let level = keyCols.length - 1; level >= 0 && rows.length < limit; level--) {
        const more = afterClosed[level]!.values(chain, ...after.slice(0, level + 1), limit - rows.length) as Array<Array<string | number>>;
        rows = rows.length === 0 ? more : rows.concat(more);
      }
    }
    const groups = new Map<string, Group>();
    for (const r of rows) {
      const g = { requestor: r[1] as string, tokenAddress: r[2] as string, since: r[3] as number };
      const cur = groups.get(key(g));
      if (!cur || g.since < cur.since) groups.set(key(g), g);
    }
    return { receivers: [...groups.values()], next: rows.length < limit ? null : rows[rows.length - 1]! };
  };
  const references = sqlite.prepare(
    `SELECT solana_reference AS reference, requestor, token_address AS tokenAddress, created_at AS createdAt
       FROM (${watched(live, closed, 'solana_reference, requestor, token_address, created_at')}) WHERE solana_reference IS NOT NULL`,
  );
  const getCursor = sqlite.prepare('SELECT value FROM chain_cursors WHERE chain = ? AND key = ?');
  const setCursor = sqlite.prepare(
    `INSERT INTO chain_cursors (chain, key, value, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (chain, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  const unfinalized = sqlite.prepare(unfinalizedMatchesSql(states));
  return {
    receivers,
    closedReceiversPage,
    references: (chain, since) => references.all({ $chain: chain, $since: since }) as WatchedReference[],
    getCursor: (chain, key) => (getCursor.get(chain, key) as { value: string } | null)?.value ?? null,
    setCursor: (chain, key, value, now) => void setCursor.run(chain, key, value, now),
    unfinalizedMatches: (chain) =>
      (unfinalized.all(chain) as Array<Omit<UnfinalizedMatch, 'amountBaseUnits'> & { amount: string }>).map(({ amount, ...m }) => ({
        ...m,
        amountBaseUnits: BigInt(amount),
      })),
  };
}

/**
 * The matched payments whose intent is still watched, and the ambiguous ones an intent took by
 * its transaction: read every poll. Reached from the live intents of the chain that hold a
 * transaction (intents_live_tx: never the live intents still waiting for a payer) and from
 * payments_ambiguous; as one join over `payments WHERE chain = ?` it read every payment the
 * chain ever had, each poll. The watched states are live ones (the machine's tags). Plans pinned
 * by test/store/detection-plans.test.ts.
 */
export function unfinalizedMatchesSql(states: DetectionStates): string {
  return `SELECT txSignature, intentId, tokenAddress, "from", "to", amount FROM (
       SELECT p.seq, p.tx_signature AS txSignature, p.intent_id AS intentId, p.token_address AS tokenAddress,
              p.from_address AS "from", p.to_address AS "to", p.amount_base_units AS amount
         FROM intents i INDEXED BY intents_live_tx JOIN payments p ON p.chain = i.chain AND p.tx_signature = i.tx_signature
        WHERE i.tx_signature IS NOT NULL AND ${stateIs(states.live, 'i.state')} AND i.chain = ?1
          AND i.state IN (${stateList(states.watching)}) AND p.status = 'matched'
       UNION
       SELECT p.seq, p.tx_signature, p.intent_id, p.token_address, p.from_address, p.to_address, p.amount_base_units
         FROM payments p INDEXED BY payments_ambiguous JOIN intents i ON i.chain = p.chain AND i.tx_signature = p.tx_signature
        WHERE p.chain = ?1 AND p.reason = 'ambiguous'
     ) ORDER BY seq`;
}
