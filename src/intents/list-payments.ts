// GET /v1/payments: the caller's ledger of transfers found on chain, newest first, cursor
// starting_after (a payment id), optional status filter (contract section 11). The operator (the
// dashboard) lists every account's with the same verb.
import type { Caller, Operator } from '../domain/caller';
import { invalidParam } from '../domain/errors';
import { PAYMENT_STATUSES, toPaymentWire, type PaymentStatus, type PaymentWire } from '../domain/payment';
import type { Services } from './services';

export interface ListPaymentsInput {
  limit: number;
  startingAfter?: string;
  status?: string;
}

/** What the operator sees of a payment: the API's object and whose it is. */
export type OperatorPayment = PaymentWire & { accountId: string };

export interface ListPaymentsResult<P = PaymentWire> {
  payments: P[];
  hasMore: boolean;
}

export function listPayments(s: Services, who: Caller, q: ListPaymentsInput): Promise<ListPaymentsResult>;
export function listPayments(s: Services, who: Operator, q: ListPaymentsInput): Promise<ListPaymentsResult<OperatorPayment>>;
export async function listPayments(s: Services, who: Caller | Operator, q: ListPaymentsInput): Promise<ListPaymentsResult<PaymentWire | OperatorPayment>> {
  if (q.status !== undefined && !(PAYMENT_STATUSES as readonly string[]).includes(q.status)) {
    throw invalidParam('status', `status must be one of ${PAYMENT_STATUSES.join(', ')}.`);
  }
  let beforeSeq: number | undefined;
  if (q.startingAfter !== undefined) {
    const cursor = await s.payments.get(q.startingAfter);
    // A caller's account and mode are fixed by its key; the operator's are an optional filter.
    const outside = (who.accountId !== undefined && cursor?.accountId !== who.accountId) || (who.mode !== undefined && cursor?.mode !== who.mode);
    if (!cursor || outside) {
      throw invalidParam('starting_after', `No payment ${q.startingAfter} to start after.`);
    }
    beforeSeq = cursor.seq;
  }
  const rows = await s.payments.list({
    accountId: who.accountId,
    mode: who.mode,
    status: q.status as PaymentStatus | undefined,
    beforeSeq,
    limit: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  const payments = 'operator' in who ? page.map((p) => ({ ...toPaymentWire(p), accountId: p.accountId })) : page.map(toPaymentWire);
  return { payments, hasMore: rows.length > q.limit };
}
