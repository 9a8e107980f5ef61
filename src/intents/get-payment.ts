// GET /v1/payments/{id}: one payment of the caller's account and mode; anyone else's is 404.
import type { Caller } from '../domain/caller';
import { AppError } from '../domain/errors';
import { toPaymentWire, type PaymentWire } from '../domain/payment';
import type { Services } from './services';

export async function getPayment(s: Services, caller: Caller, { id }: { id: string }): Promise<{ payment: PaymentWire }> {
  const p = await s.payments.get(id);
  if (!p || p.accountId !== caller.accountId || p.mode !== caller.mode) {
    throw new AppError('payment.not_found', `No payment ${id}.`, { details: { payment_id: id } });
  }
  return { payment: toPaymentWire(p) };
}
