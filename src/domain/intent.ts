// The PaymentIntent as the domain sees it: states, the stored record, and the wire shape.
// Pure: no I/O. Amounts are bigint base units; the wire shape carries decimal strings.

import { baseUnitsText, formatAmount } from './money';
import type { PaymentWire } from './payment';
import { eip681TransferUri, solanaPayTransferUri } from './payment-uri';
import { accountNameOf } from './account-names';
import { payUrlOf } from './pay-url';

export const INTENT_STATES = [
  'created',
  'pending',
  'confirmed',
  'finalized',
  'failed',
  'expired',
  'cancelled',
  'dropped',
] as const;
export type IntentState = (typeof INTENT_STATES)[number];

export const FAILURE_REASONS = ['insufficient_balance', 'revert', 'slippage', 'program_error'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export type Mode = 'test' | 'live';
export type ChainFamily = 'solana' | 'evm';

export const EVENT_TYPES = [
  'intent.created',
  'intent.pending',
  'intent.confirmed',
  'intent.finalized',
  'intent.failed',
  'intent.expired',
  'intent.cancelled',
  'intent.retry_required',
  'intent.detected',
  'intent.late_payment',
  'payment.unmatched',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The intent as stored (one row of `intents`). Times are epoch milliseconds. */
export interface IntentRecord {
  id: string;
  accountId: string;
  mode: Mode;
  chain: string;
  token: string;
  tokenAddress: string;
  decimals: number;
  amountBaseUnits: bigint;
  requestor: string;
  fulfiller: string | null;
  direction: 'request';
  state: IntentState;
  reference: string | null;
  metadata: Record<string, string>;
  idempotencyKey: string | null;
  ttlSeconds: number;
  expiresAt: number;
  createdAt: number;
  updatedAt: number;
  retryRequired: boolean;
  pendingAtExpiry: boolean;
  txSignature: string | null;
  detectedAt: number | null;
  ataRentLamports: number | null;
  confirmedAt: number | null;
  finalizedAt: number | null;
  failureReason: FailureReason | null;
  refundedBy: string | null;
  refundOf: string | null;
  /** Every refund intent made for this one, oldest first; refundedBy is the newest. */
  refunds: readonly string[];
  /** Solana family: base58 32-byte Solana Pay reference made at create; null on EVM. */
  solanaReference: string | null;
  /** Money that arrived after the intent closed (expired, cancelled, failed); null otherwise. */
  latePayment: LatePayment | null;
  /** The payment page's capability token (null only for intents made before pay links existed). */
  payToken: string | null;
}

/** A transfer that matched an intent already closed (contract section 11). */
export interface LatePayment {
  txSignature: string;
  amountBaseUnits: bigint;
  from: string;
  detectedAt: number;
}

export interface LatePaymentWire {
  txSignature: string;
  amount: string;
  amountBaseUnits: string;
  from: string;
  detectedAt: string;
}

/** The PaymentIntent object of the API and of webhook envelopes: every field, unset = null. */
export interface PaymentIntentWire {
  id: string;
  chain: string;
  token: string;
  amount: string;
  requestor: string;
  direction: 'request';
  state: IntentState;
  reference: string | null;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  livemode: boolean;
  idempotencyKey: string | null;
  tokenAddress: string;
  amountBaseUnits: string;
  fulfiller: string | null;
  retryRequired: boolean;
  pendingAtExpiry: boolean;
  txSignature: string | null;
  detectedAt: string | null;
  ataRentLamports: number | null;
  ttlSeconds: number;
  confirmedAt: string | null;
  finalizedAt: string | null;
  metadata: Record<string, string>;
  refundedBy: string | null;
  refundOf: string | null;
  refunds: string[];
  failureReason: FailureReason | null;
  solanaReference: string | null;
  paymentUri: string;
  latePayment: LatePaymentWire | null;
  payToken: string | null;
  payUrl: string | null;
}

// The last two instants formatted: a new intent's createdAt, updatedAt and its event's createdAt
// are one, its expiresAt the other, and creates within the same millisecond (several at load)
// share both.
let lastMs = Number.NaN;
let lastIso = '';
let prevMs = Number.NaN;
let prevIso = '';
export function iso(ms: number): string {
  if (ms === lastMs) return lastIso;
  if (ms === prevMs) return prevIso;
  prevMs = lastMs;
  prevIso = lastIso;
  lastIso = new Date(ms).toISOString();
  lastMs = ms;
  return lastIso;
}
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

// Every record's wire, rendered once: a write renders its intent for the event's payload and
// again for the response, and a group-commit batch renders ~30 creates between the two (records
// are never changed in place: every move makes a new object, so a record's wire never goes stale).
const wires = new WeakMap<IntentRecord, PaymentIntentWire>();

export function toWire(r: IntentRecord): PaymentIntentWire {
  let w = wires.get(r);
  if (w === undefined) {
    w = render(r);
    wires.set(r, w);
  }
  return w;
}

function render(r: IntentRecord): PaymentIntentWire {
  return {
    id: r.id,
    chain: r.chain,
    token: r.token,
    amount: formatAmount(r.amountBaseUnits, r.decimals),
    requestor: r.requestor,
    direction: r.direction,
    state: r.state,
    reference: r.reference,
    expiresAt: iso(r.expiresAt),
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
    livemode: r.mode === 'live',
    idempotencyKey: r.idempotencyKey,
    tokenAddress: r.tokenAddress,
    amountBaseUnits: baseUnitsText(r.amountBaseUnits),
    fulfiller: r.fulfiller,
    retryRequired: r.retryRequired,
    pendingAtExpiry: r.pendingAtExpiry,
    txSignature: r.txSignature,
    detectedAt: isoOrNull(r.detectedAt),
    ataRentLamports: r.ataRentLamports,
    ttlSeconds: r.ttlSeconds,
    confirmedAt: isoOrNull(r.confirmedAt),
    finalizedAt: isoOrNull(r.finalizedAt),
    metadata: r.metadata,
    refundedBy: r.refundedBy,
    refundOf: r.refundOf,
    refunds: [...r.refunds],
    failureReason: r.failureReason,
    solanaReference: r.solanaReference,
    paymentUri: paymentUriOf(r),
    payToken: r.payToken,
    payUrl: payUrlOf(r.payToken),
    latePayment:
      r.latePayment === null
        ? null
        : {
            txSignature: r.latePayment.txSignature,
            amount: formatAmount(r.latePayment.amountBaseUnits, r.decimals),
            amountBaseUnits: r.latePayment.amountBaseUnits.toString(),
            from: r.latePayment.from,
            detectedAt: iso(r.latePayment.detectedAt),
          },
  };
}

/** What a wallet or QR code needs with no build (contract section 11); Solana's label is the account name. */
export function paymentUriOf(r: IntentRecord): string {
  if (r.chain.startsWith('solana:')) {
    return solanaPayTransferUri({
      requestor: r.requestor,
      amount: formatAmount(r.amountBaseUnits, r.decimals),
      mint: r.tokenAddress,
      reference: r.solanaReference,
      label: accountNameOf(r.accountId),
    });
  }
  const chainId = Number(r.chain.slice(r.chain.indexOf(':') + 1));
  return eip681TransferUri({ tokenAddress: r.tokenAddress, chainId, requestor: r.requestor, amountBaseUnits: r.amountBaseUnits });
}

/**
 * The webhook / events API envelope of seed section 6.1. `payment.unmatched` carries the payment
 * record instead of an intent (contract section 11).
 */
export interface EventEnvelope {
  eventId: string;
  type: EventType;
  createdAt: string;
  livemode: boolean;
  data: { intent: PaymentIntentWire } | { payment: PaymentWire };
}
