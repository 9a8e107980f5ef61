// Intent rows on PostgreSQL: the same columns, encodings and orderings as ../intents.ts (JSON
// text columns, amounts as decimal text, times as BIGINT ms, newest first by seq), plus
// getForUpdate: the row read with FOR UPDATE, so that two transitions of one intent, on any
// instances, queue on the row lock in the database instead of in one process's memory.
import type { IntentState, } from '../../domain/intent';
import { CLOSED_BEYOND, endPage, type IntentRepo, type IntentStates, liveExactWhere, type LiveCursor, type LiveHead, RECEIVER_CANDIDATES, type StoredIntent, withOlder } from '../intents';
import { INTENT_COLUMNS as COLUMNS, intentFromRow, intentToRow } from '../intent-row';
import { stateList } from '../states';
import { type Async, bool, first, num, type Pg, rows } from './sql';

/** IntentRepo on PostgreSQL, plus the transition's locked read. */
export type PgIntentRepo = Async<IntentRepo> & {
  /** The row, locked until the transaction ends (FOR UPDATE); on the pool it is a plain read. */
  getForUpdate(id: string): Promise<StoredIntent | null>;
};

interface Statements {
  insert: string;
  update: string;
  listLive: string;
  headsFirst: string;
  headsAfter: string;
  headsAt: string;
  byReceiver: string;
  liveExact: string;
  closedExact: string;
  closedWithTx: string;
}

/** SQLite's `?` placeholders as PostgreSQL's `$1`, `$2`, ... in order. */
const numbered = (where: string) => {
  let n = 0;
  return where.replace(/\?/g, () => `$${++n}`);
};

const HEAD = 'SELECT id, account_id, state, expires_at, pending_at_expiry, tx_signature FROM intents';
const ORDER = 'ORDER BY chain, requestor, token_address, created_at';

const headOf = (r: Record<string, unknown>): LiveHead => ({
  id: r.id as string,
  accountId: r.account_id as string,
  state: r.state as IntentState,
  expiresAt: num(r.expires_at),
  pendingAtExpiry: bool(r.pending_at_expiry),
  txSignature: (r.tx_signature as string | null) ?? null,
});

// The SQL depends only on the live set: built once per set, not once per transaction's repos.
const cache = new Map<string, Statements>();

function statements(live: string): Statements {
  let s = cache.get(live);
  if (s) return s;
  s = {
    insert: `INSERT INTO intents (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, n) => `$${n + 1}`).join(', ')})`,
    update: `UPDATE intents SET ${COLUMNS.slice(1).map((c, n) => `${c} = $${n + 1}`).join(', ')} WHERE id = $${COLUMNS.length}`,
    listLive: `SELECT * FROM intents WHERE state IN (${live}) ORDER BY seq`,
    // A range of the partial index intents_live (the same state list proves it applies; the row
    // comparison is an index condition on its four leading columns, in index order: no sort).
    headsFirst: `${HEAD} WHERE state IN (${live}) ${ORDER} LIMIT $1`,
    headsAfter: `${HEAD} WHERE state IN (${live}) AND (chain, requestor, token_address, created_at) > ($1, $2, $3, $4) ${ORDER} LIMIT $5`,
    headsAt: `${HEAD} WHERE state IN (${live}) AND chain = $1 AND requestor = $2 AND token_address = $3 AND created_at = $4`,
    byReceiver: `SELECT * FROM intents WHERE chain = $1 AND requestor = $2 AND token_address = $3
       AND (state IN (${live}) OR updated_at >= $4) ORDER BY seq DESC LIMIT ${RECEIVER_CANDIDATES}`,
    liveExact: `SELECT * FROM intents WHERE state IN (${live}) AND ${numbered(liveExactWhere)} ORDER BY seq DESC LIMIT ${RECEIVER_CANDIDATES}`,
    // The receiver's next rows first (materialized, with the columns the filter needs), then the
    // few that pass by seq: as one query the planner may scan the whole table for amount and
    // state instead (a parallel seq scan, ~40-50 ms at 200k rows).
    closedExact: `WITH older AS MATERIALIZED (
         SELECT seq, amount_base_units, fulfiller, state, updated_at FROM intents WHERE chain = $1 AND requestor = $2 AND token_address = $3
           AND seq < (SELECT seq FROM intents WHERE id = $6) ORDER BY seq DESC LIMIT ${CLOSED_BEYOND})
       SELECT * FROM intents WHERE seq IN (
         SELECT seq FROM older WHERE amount_base_units = $4 AND (fulfiller IS NULL OR fulfiller = $5) AND state NOT IN (${live}) AND updated_at >= $7)
       ORDER BY seq DESC`,
    closedWithTx: `SELECT * FROM intents WHERE chain = $1 AND state NOT IN (${live}) AND updated_at >= $2 AND tx_signature IS NOT NULL
       AND finalized_at IS NULL ORDER BY updated_at, seq`,
  };
  cache.set(live, s);
  return s;
}

export function createPgIntentRepo(q: Pg, states: IntentStates): PgIntentRepo {
  const s = statements(stateList(states.live));
  const one = async (text: string, params: unknown[]) => {
    const r = await first(q, text, params);
    return r ? intentFromRow(r) : null;
  };
  const all = async (text: string, params: unknown[]) => (await rows(q, text, params)).map(intentFromRow);
  return {
    insert: async (i) => void (await q.unsafe(s.insert, intentToRow(i, (b) => b))),
    update: async (i) => {
      const row = intentToRow(i, (b) => b);
      await q.unsafe(s.update, [...row.slice(1), i.id]);
    },
    get: (id) => one('SELECT * FROM intents WHERE id = $1', [id]),
    getForUpdate: (id) => one('SELECT * FROM intents WHERE id = $1 FOR UPDATE', [id]),
    seqOf: async (id, accountId, mode) => {
      // A null account or mode matches any (the operator narrows by one of them, or neither).
      const r = await first<{ seq: string }>(
        q,
        'SELECT seq FROM intents WHERE id = $1 AND account_id = coalesce($2, account_id) AND mode = coalesce($3, mode)',
        [id, accountId ?? null, mode ?? null],
      );
      return r ? num(r.seq) : null;
    },
    list: (lq) => {
      const where: string[] = [];
      const args: unknown[] = [];
      const add = (col: string, op: string, v: unknown) => (args.push(v), where.push(`${col} ${op} $${args.length}`));
      if (lq.accountId !== undefined) add('account_id', '=', lq.accountId);
      if (lq.mode !== undefined) add('mode', '=', lq.mode);
      if (lq.beforeSeq !== undefined) add('seq', '<', lq.beforeSeq);
      if (lq.state !== undefined) add('state', '=', lq.state);
      if (lq.reference !== undefined) add('reference', '=', lq.reference);
      args.push(lq.limit);
      return all(`SELECT * FROM intents ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT $${args.length}`, args);
    },
    listLive: () => all(s.listLive, []),
    liveHeadsPage: async (after, limit) => {
      const read = after === null ? await rows(q, s.headsFirst, [limit]) : await rows(q, s.headsAfter, [...after, limit]);
      const heads = read.map(headOf);
      if (heads.length < limit) return { heads, next: null };
      // The cursor columns of the page's last intent only; they never change, so reading them
      // apart from the page is safe. Its whole group is read again in one statement.
      const c = (await first(q, 'SELECT chain, requestor, token_address, created_at FROM intents WHERE id = $1', [heads[heads.length - 1]!.id]))!;
      const next: LiveCursor = [c.chain as string, c.requestor as string, c.token_address as string, num(c.created_at)];
      return endPage(heads, next, (await rows(q, s.headsAt, [...next])).map(headOf));
    },
    findByTxSignature: (chain, tx) => one('SELECT * FROM intents WHERE chain = $1 AND tx_signature = $2', [chain, tx]),
    findBySolanaReference: (ref) => one('SELECT * FROM intents WHERE solana_reference = $1', [ref]),
    findByPayToken: (token) => one('SELECT * FROM intents WHERE pay_token = $1', [token]),
    listByReceiver: async (chain, requestor, tokenAddress, since, exact) => {
      const read = await all(s.byReceiver, [chain, requestor, tokenAddress, since]);
      if (!exact || read.length < RECEIVER_CANDIDATES) return read;
      const amount = exact.amountBaseUnits.toString();
      const oldest = read[read.length - 1]!.id;
      withOlder(read, await all(s.liveExact, [chain, requestor, tokenAddress, amount, exact.from]));
      return withOlder(read, await all(s.closedExact, [chain, requestor, tokenAddress, amount, exact.from, oldest, since]));
    },
    listClosedWithTransaction: (chain, since) => all(s.closedWithTx, [chain, since]),
  };
}
