// Schemas of the payments routes (contract section 11): the ledger of transfers found on chain.
import { t } from 'elysia';
import { PAYMENT_REASONS, PAYMENT_STATUSES } from '../../domain/payment';
import { Amount, BaseUnits, Chain, Enum, Id, Iso, LimitParam, Nullable } from '../schema-kit';

export const Payment = t.Object(
  {
    id: Id('pay'),
    chain: Chain,
    token: t.String({ description: 'Token symbol', examples: ['USDC'] }),
    tokenAddress: t.String({ description: 'Token contract (EVM) or mint (Solana)' }),
    amount: Amount('Decimal amount that arrived, in token units'),
    amountBaseUnits: BaseUnits,
    from: t.String({ description: 'Sender (token owner) of the transfer' }),
    to: t.String({ description: 'Requestor (wallet owner) credited' }),
    txSignature: t.String({ description: 'Solana signature or EVM transaction hash' }),
    intentId: Nullable(Id('pi', 'The intent it paid or names; null when none')),
    status: Enum(PAYMENT_STATUSES, { title: 'PaymentStatus' }),
    reason: Nullable(Enum(PAYMENT_REASONS, { title: 'PaymentReason', description: 'Why it moved no intent; null when matched' })),
    detectedAt: Iso,
    livemode: t.Boolean(),
  },
  { additionalProperties: false, title: 'Payment', description: 'A transfer found on chain' },
);

export const ListPaymentsQuery = t.Object({
  limit: t.Optional(LimitParam),
  starting_after: t.Optional(t.String({ maxLength: 64, description: 'A payment id: the page after it' })),
  // The verb checks it (so the message lists the values); the document shows the enum.
  status: t.Optional(t.String({ maxLength: 16, docSchema: { $ref: '#/components/schemas/PaymentStatus' } })),
});

export const ListPaymentsResponse = t.Object({ payments: t.Array(Payment), hasMore: t.Boolean() }, { title: 'PaymentList' });
export const PaymentResponse = t.Object({ payment: Payment }, { title: 'PaymentResponse' });
