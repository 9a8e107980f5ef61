// Payment rows (contract section 11): the ledger of transfers found on chain. One row per
// (chain, transaction), enforced by a unique index. Prepared statements; maps rows to PaymentRecord.
import type { Database } from 'bun:sqlite';
import type { Mode } from '../domain/intent';
import type { PaymentRecord, PaymentStatus } from '../domain/payment';
import type { Awaitable, Sync } from './awaitable';
import { PAYMENT_COLUMNS, paymentFromRow } from './payment-row';

type Row = Record<string, unknown>;

export interface ListPaymentsQuery {
  /** Omitted: every account (the operator's dashboard). */
  accountId?: string;
  mode?: Mode;
  status?: PaymentStatus;
  /** seq of the starting_after payment: older ones only. */
  beforeSeq?: number;
  limit: number;
}

export type { StoredPayment } from './payment-row';
import type { StoredPayment } from './payment-row';

export interface PaymentRepo {
  insert(p: PaymentRecord): Awaitable<void>;
  get(id: string): Awaitable<StoredPayment | null>;
  findByTx(chain: string, txSignature: string): Awaitable<StoredPayment | null>;
  /** Newest first. */
  list(q: ListPaymentsQuery): Awaitable<StoredPayment[]>;
  /**
   * An unmatched payment whose intent became known (a submit by txSignature settled it): matched,
   * and in that intent's ledger (an ambiguous transfer whose candidates spanned accounts was
   * recorded under one of them, maybe not the one it paid).
   */
  settle(id: string, intent: { id: string; accountId: string; mode: Mode }): Awaitable<void>;
}

export function createPaymentRepo(sqlite: Database): Sync<PaymentRepo> {
  const insert = sqlite.prepare(`INSERT INTO payments (${PAYMENT_COLUMNS.join(', ')}) VALUES (${PAYMENT_COLUMNS.map(() => '?').join(', ')})`);
  const get = sqlite.prepare('SELECT * FROM payments WHERE id = ?');
  const byTx = sqlite.prepare('SELECT * FROM payments WHERE chain = ? AND tx_signature = ?');
  const settle = sqlite.prepare(`UPDATE payments SET status = 'matched', reason = NULL, intent_id = ?, account_id = ?, mode = ? WHERE id = ?`);
  return {
    insert: (p) =>
      void insert.run(
        p.id, p.accountId, p.mode, p.chain, p.token, p.tokenAddress, p.decimals, p.amountBaseUnits.toString(), p.from, p.to,
        p.txSignature, p.intentId, p.status, p.reason, p.detectedAt,
      ),
    get: (id) => {
      const r = get.get(id) as Row | null;
      return r ? paymentFromRow(r) : null;
    },
    findByTx: (chain, tx) => {
      const r = byTx.get(chain, tx) as Row | null;
      return r ? paymentFromRow(r) : null;
    },
    settle: (id, i) => void settle.run(i.id, i.accountId, i.mode, id),
    list: (q) => {
      const where: string[] = [];
      const args: (string | number)[] = [];
      if (q.accountId !== undefined) (where.push('account_id = ?'), args.push(q.accountId));
      if (q.mode !== undefined) (where.push('mode = ?'), args.push(q.mode));
      if (q.status !== undefined) (where.push('status = ?'), args.push(q.status));
      if (q.beforeSeq !== undefined) (where.push('seq < ?'), args.push(q.beforeSeq));
      const sql = `SELECT * FROM payments ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`;
      return (sqlite.query(sql).all(...args, q.limit) as Row[]).map(paymentFromRow);
    },
  };
}
