// Payment rows on PostgreSQL (contract section 11), as ../payments.ts: one row per (chain,
// transaction) by the unique index payments_tx, newest first by seq.
import type { Mode } from '../../domain/intent';
import type { PaymentReason, PaymentStatus } from '../../domain/payment';
import type { PaymentRepo, StoredPayment } from '../payments';
import { type Async, first, num, type Pg, type Row, rows } from './sql';

const COLUMNS = [
  'id', 'account_id', 'mode', 'chain', 'token', 'token_address', 'decimals', 'amount_base_units', 'from_address',
  'to_address', 'tx_signature', 'intent_id', 'status', 'reason', 'detected_at',
] as const;

const INSERT = `INSERT INTO payments (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, n) => `$${n + 1}`).join(', ')})`;

function fromRow(r: Row): StoredPayment {
  return {
    seq: num(r.seq),
    id: r.id as string,
    accountId: r.account_id as string,
    mode: r.mode as Mode,
    chain: r.chain as string,
    token: r.token as string,
    tokenAddress: r.token_address as string,
    decimals: num(r.decimals),
    amountBaseUnits: BigInt(r.amount_base_units as string),
    from: r.from_address as string,
    to: r.to_address as string,
    txSignature: r.tx_signature as string,
    intentId: (r.intent_id as string | null) ?? null,
    status: r.status as PaymentStatus,
    reason: (r.reason as PaymentReason | null) ?? null,
    detectedAt: num(r.detected_at),
  };
}

export function createPgPaymentRepo(q: Pg): Async<PaymentRepo> {
  const one = async (text: string, params: unknown[]) => {
    const r = await first(q, text, params);
    return r ? fromRow(r) : null;
  };
  return {
    insert: async (p) =>
      void (await q.unsafe(INSERT, [
        p.id, p.accountId, p.mode, p.chain, p.token, p.tokenAddress, p.decimals, p.amountBaseUnits.toString(), p.from, p.to,
        p.txSignature, p.intentId, p.status, p.reason, p.detectedAt,
      ])),
    get: (id) => one('SELECT * FROM payments WHERE id = $1', [id]),
    findByTx: (chain, tx) => one('SELECT * FROM payments WHERE chain = $1 AND tx_signature = $2', [chain, tx]),
    settle: async (id, intentId) =>
      void (await q.unsafe(`UPDATE payments SET status = 'matched', reason = NULL, intent_id = $1 WHERE id = $2`, [intentId, id])),
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
      return (await rows(q, text, args)).map(fromRow);
    },
  };
}
