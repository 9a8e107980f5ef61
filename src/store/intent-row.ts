// An intent row and back, the same for both engines (../intents.ts and ./pg/intents.ts): the
// columns in order, JSON TEXT columns, amounts as decimal text, times as integer ms.
import type { IntentRecord, IntentState, LatePayment, Mode } from '../domain/intent';
import { baseUnitsText } from '../domain/money';
import { bool, json, num, numOrNull } from './columns';

type Row = Record<string, unknown>;

/** Row columns the runtime keeps beside the domain record. */
export interface IntentStorage {
  buildData: Record<string, unknown> | null;
  signedTransaction: string | null;
  watchData: Record<string, unknown> | null;
  snapshot: string;
  machineVersion: number;
}

export type StoredIntent = IntentRecord & IntentStorage;

export const INTENT_COLUMNS = [
  'id', 'account_id', 'mode', 'chain', 'token', 'token_address', 'decimals', 'amount_base_units', 'requestor',
  'fulfiller', 'direction', 'state', 'reference', 'metadata', 'idempotency_key', 'ttl_seconds', 'expires_at',
  'created_at', 'updated_at', 'retry_required', 'pending_at_expiry', 'tx_signature', 'detected_at',
  'ata_rent_lamports', 'confirmed_at', 'finalized_at', 'failure_reason', 'refunded_by', 'refund_of',
  'build_data', 'signed_transaction', 'watch_data', 'snapshot', 'machine_version', 'solana_reference', 'late_payment',
  'pay_token', 'refunds',
] as const;

const jsonOrNull = (v: unknown) => (v === null ? null : JSON.stringify(v));

/** SQLite's booleans (0/1), for intentToRow: one function, not a closure per row written. */
export const sqliteFlag = (b: boolean): number => (b ? 1 : 0);

/** The row's values in INTENT_COLUMNS order; `flag` encodes a boolean for the engine. */
export function intentToRow(i: StoredIntent, flag: (b: boolean) => unknown): unknown[] {
  return [
    i.id, i.accountId, i.mode, i.chain, i.token, i.tokenAddress, i.decimals, baseUnitsText(i.amountBaseUnits), i.requestor,
    i.fulfiller, i.direction, i.state, i.reference, JSON.stringify(i.metadata), i.idempotencyKey, i.ttlSeconds, i.expiresAt,
    i.createdAt, i.updatedAt, flag(i.retryRequired), flag(i.pendingAtExpiry), i.txSignature, i.detectedAt,
    i.ataRentLamports, i.confirmedAt, i.finalizedAt, i.failureReason, i.refundedBy, i.refundOf,
    jsonOrNull(i.buildData), i.signedTransaction, jsonOrNull(i.watchData), i.snapshot, i.machineVersion, i.solanaReference,
    i.latePayment === null ? null : JSON.stringify({ ...i.latePayment, amountBaseUnits: i.latePayment.amountBaseUnits.toString() }),
    // (No refunds, as every new intent: the same text, not a new string per row.)
    i.payToken, i.refunds.length === 0 ? '[]' : JSON.stringify(i.refunds),
  ];
}

function latePaymentOf(v: unknown): LatePayment | null {
  const j = json<Omit<LatePayment, 'amountBaseUnits'> & { amountBaseUnits: string }>(v);
  return j === null ? null : { ...j, amountBaseUnits: BigInt(j.amountBaseUnits) };
}

export function intentFromRow(r: Row): StoredIntent {
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    mode: r.mode as Mode,
    chain: r.chain as string,
    token: r.token as string,
    tokenAddress: r.token_address as string,
    decimals: num(r.decimals),
    amountBaseUnits: BigInt(r.amount_base_units as string),
    requestor: r.requestor as string,
    fulfiller: (r.fulfiller as string | null) ?? null,
    direction: 'request',
    state: r.state as IntentState,
    reference: (r.reference as string | null) ?? null,
    metadata: JSON.parse(r.metadata as string) as Record<string, string>,
    idempotencyKey: (r.idempotency_key as string | null) ?? null,
    ttlSeconds: num(r.ttl_seconds),
    expiresAt: num(r.expires_at),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
    retryRequired: bool(r.retry_required),
    pendingAtExpiry: bool(r.pending_at_expiry),
    txSignature: (r.tx_signature as string | null) ?? null,
    detectedAt: numOrNull(r.detected_at),
    ataRentLamports: numOrNull(r.ata_rent_lamports),
    confirmedAt: numOrNull(r.confirmed_at),
    finalizedAt: numOrNull(r.finalized_at),
    failureReason: (r.failure_reason as IntentRecord['failureReason']) ?? null,
    refundedBy: (r.refunded_by as string | null) ?? null,
    refundOf: (r.refund_of as string | null) ?? null,
    buildData: json(r.build_data),
    signedTransaction: (r.signed_transaction as string | null) ?? null,
    watchData: json(r.watch_data),
    snapshot: r.snapshot as string,
    machineVersion: num(r.machine_version),
    solanaReference: (r.solana_reference as string | null) ?? null,
    latePayment: latePaymentOf(r.late_payment),
    payToken: (r.pay_token as string | null) ?? null,
    refunds: JSON.parse(r.refunds as string) as string[],
  };
}
