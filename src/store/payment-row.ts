// A payment row and back, the same for both engines (../payments.ts and ./pg/payments.ts).
import type { Mode } from '../domain/intent';
import type { PaymentReason, PaymentRecord, PaymentStatus } from '../domain/payment';
import { num } from './columns';

type Row = Record<string, unknown>;

export type StoredPayment = PaymentRecord & { seq: number };

export const PAYMENT_COLUMNS = [
  'id', 'account_id', 'mode', 'chain', 'token', 'token_address', 'decimals', 'amount_base_units', 'from_address',
  'to_address', 'tx_signature', 'intent_id', 'status', 'reason', 'detected_at',
] as const;


export function paymentFromRow(r: Row): StoredPayment {
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
