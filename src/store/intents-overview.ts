// The operator's reads of intents across every account (the dashboard): a filtered,
// newest-first page of list rows and the count per account. Nothing here writes.
import type { IntentState, Mode } from '../domain/intent';
import type { Db } from './db';

export interface IntentListRow {
  seq: number;
  id: string;
  accountId: string;
  mode: Mode;
  chain: string;
  token: string;
  decimals: number;
  amountBaseUnits: string;
  state: IntentState;
  reference: string | null;
  createdAt: number;
}

export interface IntentFilter {
  state?: IntentState;
  accountId?: string;
  mode?: Mode;
  /** Older than this seq (next page). */
  beforeSeq?: number;
}

/** Newest first, at most `limit` rows. */
export function listIntentRows(db: Db, f: IntentFilter, limit: number): IntentListRow[] {
  const where: string[] = [];
  const args: (string | number)[] = [];
  const add = (clause: string, value: string | number) => {
    where.push(clause);
    args.push(value);
  };
  if (f.state) add('state = ?', f.state);
  if (f.accountId) add('account_id = ?', f.accountId);
  if (f.mode) add('mode = ?', f.mode);
  if (f.beforeSeq !== undefined) add('seq < ?', f.beforeSeq);
  return db.sqlite
    .query<IntentListRow, (string | number)[]>(
      `SELECT seq, id, account_id AS accountId, mode, chain, token, decimals, amount_base_units AS amountBaseUnits, state,
              reference, created_at AS createdAt
         FROM intents ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`,
    )
    .all(...args, limit);
}

/** How many intents each account has (accounts without any are absent). */
export function intentCountsByAccount(db: Db): Map<string, number> {
  const rows = db.sqlite
    .query<{ accountId: string; n: number }, []>('SELECT account_id AS accountId, COUNT(*) AS n FROM intents GROUP BY account_id')
    .all();
  return new Map(rows.map((r) => [r.accountId, r.n]));
}
