// Schemas of the payments routes (contract section 11): the ledger of transfers found on chain.
import { t } from 'elysia';
import { PAYMENT_REASONS, PAYMENT_STATUSES } from '../../domain/payment';

export const Payment = t.Object(
  {
    id: t.String({ pattern: '^pay_' }),
    chain: t.String(),
    token: t.String(),
    tokenAddress: t.String(),
    amount: t.String({ description: 'Decimal amount that arrived, in token units' }),
    amountBaseUnits: t.String(),
    from: t.String({ description: 'Sender (token owner) of the transfer' }),
    to: t.String({ description: 'Requestor (wallet owner) credited' }),
    txSignature: t.String(),
    intentId: t.Union([t.String(), t.Null()]),
    status: t.UnionEnum([...PAYMENT_STATUSES]),
    reason: t.Union([t.UnionEnum([...PAYMENT_REASONS]), t.Null()], { description: 'null when matched' }),
    detectedAt: t.String({ format: 'date-time' }),
    livemode: t.Boolean(),
  },
  { additionalProperties: false },
);

export const ListPaymentsQuery = t.Object({
  limit: t.Optional(t.String({ description: 'Integer from 1 to 100, default 20' })),
  starting_after: t.Optional(t.String({ description: 'A payment id: return older ones' })),
  status: t.Optional(t.String({ description: 'matched, late or unmatched' })),
});

export const ListPaymentsResponse = t.Object({ payments: t.Array(Payment), hasMore: t.Boolean() });
export const PaymentResponse = t.Object({ payment: Payment });
