
import type { PaymentRepo } from '../payments';
import { PAYMENT_COLUMNS, paymentFromRow } from '../payment-row';
import { type Async, first, type Pg, rows } from './sql';

const INSERT = `INSERT INTO payments (${PAYMENT_COLUMNS.join(', ')}) VALUES (${PAYMENT_COLUMNS.map((_, n) => `$${n + 1}`).join(', ')})`;

export function createPgPaymentRepo(q: Pg): Async<PaymentRepo> {
  const one = async (text: string, params: unknown[]) => {
    const r = await first(q, text, params);
    return r ? paymentFromRow(r) : null;
  };
  return {
    insert: async (p) =>
      void (await q.unsafe(INSERT, [
        p.id, p.accountId, p.mode, p.chain, p.token, p.tokenAddress, p.decimals, p.amountBaseUnits.toString(), p.from, p.to,
        p.txSignature, p.intentId, p.status, p.reason, p.detectedAt,
      ])),
    get: (id) => one('SELECT * FROM payments WHERE id = $1', [id]),
    findByTx: (chain, tx) => one('SELECT * FROM payments WHERE chain = $1 AND tx_signature = $2', [chain, tx]),
    settle: async (id, i) =>
      void (await q.unsafe(`UPDATE payments SET status = 'matched', reason = NULL, intent_id = $1, account_id = $2, mode = $3 WHERE id = $4`, [
        i.id, i.accountId, i.mode, id,
      ])),
    list: async (lq) => {
      const where: string[] = [];
      const args: unknown[] = [];
      const add = (clause: string, v: unknown) => (args.push(v), where.push(`${clause} $${args.length}`));
      if (lq.accountId !== undefined) add('account_id =', lq.accountId);
      if (lq.mode !== undefined) add('mode =', lq.mode);
      if (lq.status !== undefined) add('status =', lq.status);
      if (lq.beforeSeq !== undefined) add('seq <', lq.beforeSeq);
      args.push(lq.limit);
      const text = `SELECT * FROM payments ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT $${args.length}`;
      return (await rows(q, text, args)).map(paymentFromRow);
    },
  };
}
