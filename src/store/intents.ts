// Intent rows: prepared statements for the hot paths (insert, update, get by id) and the
// filtered, newest-first list. Maps rows to the domain IntentRecord and back.
import type { Database, Statement } from 'bun:sqlite';
import type { IntentState, Mode } from '../domain/intent';
import { INTENT_COLUMNS as COLUMNS, intentFromRow, intentToRow, sqliteFlag } from './intent-row';
import { stateIs, stateIsNot } from './states';
import type { Awaitable, Sync } from './awaitable';

export type { IntentStorage, StoredIntent } from './intent-row';
import type { StoredIntent } from './intent-row';

type Row = Record<string, unknown>;

export interface ListIntentsQuery {
  /** Absent: every account's (the operator's view), as for mode. */
  accountId?: string;
  mode?: Mode;
  limit: number;
  /** seq of the starting_after intent: return older ones only. */
  beforeSeq?: number;
  state?: IntentState;
  reference?: string;
}

/** The fields of a live intent its deadline and liveness follow from. */
export type LiveHead = Pick<StoredIntent, 'id' | 'accountId' | 'state' | 'expiresAt' | 'pendingAtExpiry' | 'txSignature'>;

/**
 * Where a page of live heads ended: its last intents' receiver and creation time (the leading
 * columns of the partial index intents_live). No write changes them: a lifecycle move changes
 * only the state, which the cursor leaves out, so an intent is before or after a cursor for good.
 */
export type LiveCursor = readonly [chain: string, requestor: string, tokenAddress: string, createdAt: number];

/** One page of live heads, and where the next starts (null: this was the last). */
export interface LiveHeadsPage {
  heads: LiveHead[];
  next: LiveCursor | null;
}

export interface IntentRepo {
  insert(i: StoredIntent): Awaitable<void>;
  /** Full-row update by id (the runtime always writes the whole projection). */
  update(i: StoredIntent): Awaitable<void>;
  get(id: string): Awaitable<StoredIntent | null>;
  /**
   * The row inside a write, locked for the rest of its transaction: PostgreSQL SELECT ... FOR
   * UPDATE serializes writes to one intent; SQLite's BEGIN IMMEDIATE already holds the write lock.
   */
  getForUpdate(id: string): Awaitable<StoredIntent | null>;
  /** The seq of an intent of this account and mode (any, when absent: the operator), for starting_after; or null. */
  seqOf(id: string, accountId?: string, mode?: Mode): Awaitable<number | null>;
  list(q: ListIntentsQuery): Awaitable<StoredIntent[]>;
  /** Live intents (not terminal), whole rows. */
  listLive(): Awaitable<StoredIntent[]>;
  /**
   * What the runtime follows of live intents (boot and the periodic scan), a page at a time so
   * that the event loop turns between pages (at 100k live one read of all of them held it ~0.1 s):
   * each one's deadline, whether it is live and whether it holds a transaction. Six columns, not
   * whole rows (no JSON to parse). In intents_live's order (receiver, then creation time), the
   * live intents after `after` (from the start when null): about `limit` of them, never splitting
   * a group of equal cursor (the page ends with the whole of its last receiver's millisecond).
   * So each intent is in exactly one page's range, whatever moves it makes between the reads, and
   * read if it is live when its page is read: none is read twice nor skipped for having moved.
   * `limit` ≥ 1.
   */
  liveHeadsPage(after: LiveCursor | null, limit: number): Awaitable<LiveHeadsPage>;
  findByTxSignature(chain: string, txSignature: string): Awaitable<StoredIntent | null>;
  findBySolanaReference(reference: string): Awaitable<StoredIntent | null>;
  /** The payment page's look-up (unique partial index intents_pay_token). */
  findByPayToken(payToken: string): Awaitable<StoredIntent | null>;
  /**
   * Intents a transfer to this receiver may concern (detection, contract section 11): live ones,
   * and any updated since `since` (closed within the look-back). Newest first, the newest
   * RECEIVER_CANDIDATES of them; with `exact` (the transfer's amount and sender), when that many
   * were read, also, after them, those it can pay (that amount, no fulfiller or that sender) among
   * the older ones: every live one (intents_live_exact), so a busy receiver's open intent is never
   * out of the matcher's sight, and the closed ones updated since `since` among the receiver's next
   * CLOSED_BEYOND intents (a late transfer is that intent's late payment, not `unmatched`).
   */
  listByReceiver(chain: string, requestor: string, tokenAddress: string, since: number, exact?: ExactTransfer): Awaitable<StoredIntent[]>;
  /**
   * Closed (not live) intents of `chain` updated since `since` that hold a transaction and are
   * not finalized: the runtime keeps following the recorded transaction of those that closed
   * unpaid (contract 14). Boot only; the live ones come from the live scan.
   */
  listClosedWithTransaction(chain: string, since: number): Awaitable<StoredIntent[]>;
}

/**
 * The end of a page read in cursor order (both engines): `rows` is a full read of `limit` heads
 * whose last group (the intents of cursor `next`) may have been cut short; the whole `group` is
 * read again in one statement and replaces that group's rows, so that the next page can start
 * strictly after it (a group never spans two pages). On PostgreSQL the second read may see more:
 * an intent of the group created meanwhile is in it; one that closed meanwhile keeps the copy the
 * page read (live when read, as if it had closed just after). None is there twice.
 */
export function endPage(rows: LiveHead[], next: LiveCursor, group: LiveHead[]): LiveHeadsPage {
  const inGroup = new Set(group.map((h) => h.id));
  let kept = 0;
  for (const h of rows) if (!inGroup.has(h.id)) rows[kept++] = h;
  rows.length = kept;
  for (const h of group) rows.push(h);
  return { heads: rows, next };
}

/** The machine's tag sets the queries need (compose passes statesTagged('live')). */
export interface IntentStates {
  /** Not terminal: what boot rehydrates and what detection looks at first. */
  live: readonly IntentState[];
}

/** `rows` then those of `more` not in it (listByReceiver's two reads merged). */
export function withOlder(rows: StoredIntent[], more: StoredIntent[]): StoredIntent[] {
  const seen = new Set(rows.map((r) => r.id));
  for (const r of more) if (!seen.has(r.id)) rows.push(r);
  return rows;
}

/** What a found transfer pays: its amount and sender (listByReceiver's live intents it can pay). */
export interface ExactTransfer {
  amountBaseUnits: bigint;
  from: string;
}

/** listByReceiver's page of the newest candidates (a receiver's whole history is never read). */
export const RECEIVER_CANDIDATES = 1000;

/**
 * listByReceiver's horizon for closed intents beyond its page: that many older intents of the
 * receiver are read for the transfer's amount (each row visited, ~0.6 us: ~2.5 ms, inside the
 * write, and only for a receiver whose page is full). A closed one older still is not read: its
 * late transfer is recorded `unmatched`, in the ledger with its webhook, without latePayment.
 */
export const CLOSED_BEYOND = 4000;

/** The live intents of a receiver a transfer of `amount_base_units` from `fulfiller` can pay (both engines). */
export const liveExactWhere = 'chain = ? AND requestor = ? AND token_address = ? AND amount_base_units = ? AND (fulfiller IS NULL OR fulfiller = ?)';

/**
 * liveHeadsPage's SQL (exported for the plan's test). A range of intents_live: the row-value
 * comparison seeks into it (SQLite plans a SEARCH on its four leading columns, in index order, no
 * sort), each row then read by rowid for six columns. The cursor columns are read for a page's
 * last intent only (not three more strings per head).
 */
export function liveHeadsSql(live: string): { first: string; after: string; at: string } {
  // `live`: stateIs(the live states), intents_live's own condition.
  const head = `SELECT id, account_id AS accountId, state, expires_at AS expiresAt, pending_at_expiry AS pendingAtExpiry,
       tx_signature AS txSignature FROM intents INDEXED BY intents_live WHERE ${live}`;
  const order = 'ORDER BY chain, requestor, token_address, created_at';
  return {
    first: `${head} ${order} LIMIT ?1`,
    after: `${head} AND (chain, requestor, token_address, created_at) > (?1, ?2, ?3, ?4) ${order} LIMIT ?5`,
    at: `${head} AND chain = ?1 AND requestor = ?2 AND token_address = ?3 AND created_at = ?4`,
  };
}

export function createIntentRepo(sqlite: Database, states: IntentStates): Sync<IntentRepo> {
  const live = stateIs(states.live);
  const closed = stateIsNot(states.live);
  const insert = sqlite.prepare(
    `INSERT INTO intents (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
  );
  const update = sqlite.prepare(
    `UPDATE intents SET ${COLUMNS.slice(1).map((c) => `${c} = ?`).join(', ')} WHERE id = ?`,
  );
  const get = sqlite.prepare('SELECT * FROM intents WHERE id = ?');
  // A null account or mode matches any (the operator narrows by one of them, or neither).
  const seqOf = sqlite.prepare('SELECT seq FROM intents WHERE id = ?1 AND account_id = coalesce(?2, account_id) AND mode = coalesce(?3, mode)');
  const listLive = sqlite.prepare(
    // The live rows' seqs from the live partial index (index-only), then each row by rowid in
    // seq order: no scan of 1M stored rows and no temp b-tree sorting 100k full rows (~45 % less).
    `SELECT * FROM intents WHERE seq IN (
       SELECT seq FROM intents INDEXED BY intents_live WHERE ${live}) ORDER BY seq`,
  );
  type RawHead = Omit<LiveHead, 'pendingAtExpiry'> & { pendingAtExpiry: number | boolean };
  const sql = liveHeadsSql(live);
  const headsFirst = sqlite.prepare<RawHead, [number]>(sql.first);
  const headsAfter = sqlite.prepare<RawHead, [string, string, string, number, number]>(sql.after);
  const headsAt = sqlite.prepare<RawHead, [string, string, string, number]>(sql.at);
  const cursorOf = sqlite.prepare<{ chain: string; requestor: string; tokenAddress: string; createdAt: number }, [string]>(
    'SELECT chain, requestor, token_address AS tokenAddress, created_at AS createdAt FROM intents WHERE id = ?1',
  );
  // Mapped in place (0/1 to a boolean): no second object per live intent.
  const headsOf = (rows: RawHead[]) => {
    for (const h of rows) h.pendingAtExpiry = h.pendingAtExpiry === 1;
    return rows as LiveHead[];
  };
  const byTx = sqlite.prepare('SELECT * FROM intents WHERE chain = ? AND tx_signature = ?');
  const byReference = sqlite.prepare('SELECT * FROM intents WHERE solana_reference = ?');
  const byPayToken = sqlite.prepare('SELECT * FROM intents WHERE pay_token = ?');
  const byReceiver = sqlite.prepare(
    `SELECT * FROM intents INDEXED BY intents_receiver WHERE chain = ? AND requestor = ? AND token_address = ?
       AND (${live} OR updated_at >= ?) ORDER BY seq DESC LIMIT ${RECEIVER_CANDIDATES}`,
  );
  // The receiver's live entries of that amount (intents_live_exact), each row read for its fulfiller.
  const liveExact = sqlite.prepare(
    `SELECT * FROM intents INDEXED BY intents_live_exact WHERE ${live} AND ${liveExactWhere} ORDER BY seq DESC LIMIT ${RECEIVER_CANDIDATES}`,
  );
  // The receiver's next CLOSED_BEYOND intents older than the page's oldest (?6, by id): its seqs
  // from intents_receiver alone (seq is the rowid), then those rows for amount, sender and state.
  const closedExact = sqlite.prepare(
    `SELECT * FROM intents WHERE seq IN (
       SELECT seq FROM intents INDEXED BY intents_receiver WHERE chain = ?1 AND requestor = ?2 AND token_address = ?3
         AND seq < (SELECT seq FROM intents WHERE id = ?6) ORDER BY seq DESC LIMIT ${CLOSED_BEYOND})
       AND amount_base_units = ?4 AND (fulfiller IS NULL OR fulfiller = ?5) AND ${closed} AND updated_at >= ?7
     ORDER BY seq DESC`,
  );
  // Boot only: one range of intents_closed_unfinalized_tx, whose entries are exactly the closed
  // rows holding a transaction not finalized (not every closed row of the look-back, each read
  // from the table to find it has none: ~0.6 s at 1M). The live rows with a transaction are
  // handed to the chain watch by the live scan just before (reading them here too cost a table
  // look-up per live intent of the chain: ~70 ms at 100k).
  const closedWithTx = sqlite.prepare(
    `SELECT * FROM intents INDEXED BY intents_closed_unfinalized_tx WHERE ${closed}
        AND chain = ?1 AND updated_at >= ?2 AND tx_signature IS NOT NULL AND finalized_at IS NULL
      ORDER BY updated_at`,
  );
  const listCache = new Map<string, Statement>();

  const getRow = (id: string) => {
    const r = get.get(id) as Row | null;
    return r ? intentFromRow(r) : null;
  };
  return {
    // The values as one array (bun:sqlite binds an array argument in order): spread into the
    // call, the 38 were copied into a second array per create.
    insert: (i) => void insert.run(intentToRow(i, sqliteFlag) as never),
    update: (i) => {
      const row = intentToRow(i, sqliteFlag);
      update.run(...([...row.slice(1), i.id] as never[]));
    },
    get: getRow,
    getForUpdate: getRow,
    seqOf: (id, accountId, mode) => {
      const r = seqOf.get(id, accountId ?? null, mode ?? null) as { seq: number } | null;
      return r ? r.seq : null;
    },
    list: (q) => {
      const where: string[] = [];
      const args: unknown[] = [];
      if (q.accountId !== undefined) (where.push('account_id = ?'), args.push(q.accountId));
      if (q.mode !== undefined) (where.push('mode = ?'), args.push(q.mode));
      if (q.beforeSeq !== undefined) (where.push('seq < ?'), args.push(q.beforeSeq));
      if (q.state !== undefined) (where.push('state = ?'), args.push(q.state));
      if (q.reference !== undefined) (where.push('reference = ?'), args.push(q.reference));
      const sql = `SELECT * FROM intents ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`;
      let stmt = listCache.get(sql);
      if (!stmt) listCache.set(sql, (stmt = sqlite.prepare(sql)));
      return (stmt.all(...([...args, q.limit] as never[])) as Row[]).map(intentFromRow);
    },
    listLive: () => (listLive.all() as Row[]).map(intentFromRow),
    liveHeadsPage: (after, limit) => {
      const rows = headsOf(after === null ? headsFirst.all(limit) : headsAfter.all(after[0], after[1], after[2], after[3], limit));
      if (rows.length < limit) return { heads: rows, next: null };
      // These reads follow at once (no turn of the event loop): the page is one snapshot.
      const c = cursorOf.get(rows[rows.length - 1]!.id)!;
      const next: LiveCursor = [c.chain, c.requestor, c.tokenAddress, c.createdAt];
      return endPage(rows, next, headsOf(headsAt.all(c.chain, c.requestor, c.tokenAddress, c.createdAt)));
    },
    findByTxSignature: (chain, tx) => {
      const r = byTx.get(chain, tx) as Row | null;
      return r ? intentFromRow(r) : null;
    },
    findByPayToken: (token) => {
      const r = byPayToken.get(token) as Row | null;
      return r ? intentFromRow(r) : null;
    },
    findBySolanaReference: (ref) => {
      const r = byReference.get(ref) as Row | null;
      return r ? intentFromRow(r) : null;
    },
    listClosedWithTransaction: (chain, since) => (closedWithTx.all(chain, since) as Row[]).map(intentFromRow),
    listByReceiver: (chain, requestor, tokenAddress, since, exact) => {
      const rows = (byReceiver.all(chain, requestor, tokenAddress, since) as Row[]).map(intentFromRow);
      // Fewer than a page: every candidate is in it.
      if (!exact || rows.length < RECEIVER_CANDIDATES) return rows;
      const amount = exact.amountBaseUnits.toString();
      const oldest = rows[rows.length - 1]!.id;
      withOlder(rows, (liveExact.all(chain, requestor, tokenAddress, amount, exact.from) as Row[]).map(intentFromRow));
      return withOlder(rows, (closedExact.all(chain, requestor, tokenAddress, amount, exact.from, oldest, since) as Row[]).map(intentFromRow));
    },
  };
}
