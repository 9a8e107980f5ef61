// The payments ledger's record (contract section 11): every transfer found on chain that pays a
// watched requestor, matched to an intent or not, and why not. Pure: no I/O.
import { formatAmount } from './money';

export const PAYMENT_STATUSES = ['matched', 'late', 'unmatched'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** `sanctions_match`: the sender is on a screening list (contract 6 screens a payment's signer): it pays nothing. */
export const PAYMENT_REASONS = ['intent_closed', 'amount_mismatch', 'ambiguous', 'duplicate', 'no_open_intent', 'sanctions_match'] as const;
export type PaymentReason = (typeof PAYMENT_REASONS)[number];

export interface PaymentRecord {
  id: string;
  accountId: string;
  mode: 'test' | 'live';
  chain: string;
  token: string;
  tokenAddress: string;
  decimals: number;
  amountBaseUnits: bigint;
  from: string;
  to: string;
  txSignature: string;
  intentId: string | null;
  status: PaymentStatus;
  /** null when matched. */
  reason: PaymentReason | null;
  detectedAt: number;
}

export interface PaymentWire {
  id: string;
  chain: string;
  token: string;
  tokenAddress: string;
  amount: string;
  amountBaseUnits: string;
  from: string;
  to: string;
  txSignature: string;
  intentId: string | null;
  status: PaymentStatus;
  reason: PaymentReason | null;
  detectedAt: string;
  livemode: boolean;
}

export function toPaymentWire(p: PaymentRecord): PaymentWire {
  return {
    id: p.id,
    chain: p.chain,
    token: p.token,
    tokenAddress: p.tokenAddress,
    amount: formatAmount(p.amountBaseUnits, p.decimals),
    amountBaseUnits: p.amountBaseUnits.toString(),
    from: p.from,
    to: p.to,
    txSignature: p.txSignature,
    intentId: p.intentId,
    status: p.status,
    reason: p.reason,
    detectedAt: new Date(p.detectedAt).toISOString(),
    livemode: p.mode === 'live',
  };
}
