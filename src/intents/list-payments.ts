// GET /v1/payments: the caller's ledger of transfers found on chain, newest first, cursor
// starting_after (a payment id), optional status filter (contract section 11).
import type { Caller } from '../domain/caller';
import { invalidParam } from '../domain/errors';
import { PAYMENT_STATUSES, toPaymentWire, type PaymentStatus, type PaymentWire } from '../domain/payment';
import type { Services } from './services';

export interface ListPaymentsInput {
  limit: number;
  startingAfter?: string;
  status?: string;
}

export function listPayments(s: Services, caller: Caller, q: ListPaymentsInput): { payments: PaymentWire[]; hasMore: boolean } {
  if (q.status !== undefined && !(PAYMENT_STATUSES as readonly string[]).includes(q.status)) {
    throw invalidParam('status', `status must be one of ${PAYMENT_STATUSES.join(', ')}.`);
  }
  let beforeSeq: number | undefined;
  if (q.startingAfter !== undefined) {
    const cursor = s.payments.get(q.startingAfter);
    if (!cursor || cursor.accountId !== caller.accountId || cursor.mode !== caller.mode) {
      throw invalidParam('starting_after', `No payment ${q.startingAfter} to start after.`);
    }
    beforeSeq = cursor.seq;
  }
  const rows = s.payments.list({
    accountId: caller.accountId,
    mode: caller.mode,
    status: q.status as PaymentStatus | undefined,
    beforeSeq,
    limit: q.limit + 1,
  });
  return { payments: rows.slice(0, q.limit).map(toPaymentWire), hasMore: rows.length > q.limit };
}
