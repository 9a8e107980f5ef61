// Request and response schemas of the intents routes: they validate input types and generate
// the OpenAPI document. Semantic rules (decimals, ttl bounds, addresses) live in the verbs.
// Request schemas are exact: no unknown field (additionalProperties false), no coercion (a
// string is never read as a number or an object), every string bounded before a verb parses it.
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { MAX_AMOUNT_CHARS } from '../../domain/money';
import { ERROR_CODES } from '../../domain/errors';
import { EVENT_TYPES, INTENT_STATES } from '../../domain/intent';
import { SIMULATE_TARGETS } from '../../../machines/judge';
import { Payment } from '../payments/model';
import { Amount, BaseUnits, Chain, Enum, Iso, LimitParam, Nullable } from '../schema-kit';

/** A JSON integer only: Elysia's t.Integer also accepts (and converts) numeric strings. */
const Int = (o: Parameters<typeof Type.Integer>[0] = {}) => Type.Integer(o);
const Exact = { additionalProperties: false } as const;
/** Longest address string of either family, with room (EVM 42, Solana base58 up to 44). */
const ADDRESS_CHARS = 128;
const Address = (description: string) =>
  t.String({ maxLength: ADDRESS_CHARS, description, examples: ['0x1111111111111111111111111111111111111111', '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'] });
const Metadata = t.Record(t.String({ maxLength: 40 }), t.String({ maxLength: 500 }), {
  maxProperties: 50,
  description: 'At most 50 keys of 1 to 40 characters; string values of at most 500 characters',
});

/** Money that arrived after the intent closed (expired, cancelled, failed). */
export const LatePayment = t.Object(
  {
    txSignature: t.String({ description: 'Solana signature or EVM transaction hash' }),
    amount: Amount('Decimal amount that arrived, in token units'),
    amountBaseUnits: BaseUnits,
    from: t.String({ description: 'Sender of the transfer' }),
    detectedAt: Iso,
  },
  { additionalProperties: false, title: 'LatePayment', description: 'Money that arrived after the intent closed' },
);

export const PaymentIntent = t.Object(
  {
    id: t.String({ pattern: '^pi_[0-9A-Za-z]+$', examples: ['pi_4fTz0bq1n2Q8xY6cVw3RkL9d'] }),
    chain: Chain,
    token: t.String({ description: 'Token symbol', examples: ['USDC'] }),
    amount: Amount('Decimal amount in token units, normalised'),
    requestor: t.String({ description: 'Wallet address that receives the payment' }),
    direction: t.Literal('request'),
    state: Enum(INTENT_STATES, { title: 'IntentState' }),
    reference: Nullable(t.String()),
    expiresAt: Iso,
    createdAt: Iso,
    updatedAt: Iso,
    livemode: t.Boolean(),
    idempotencyKey: Nullable(t.String()),
    tokenAddress: t.String({ description: 'Token contract (EVM) or mint (Solana)' }),
    amountBaseUnits: BaseUnits,
    fulfiller: Nullable(t.String({ description: 'Wallet address that pays' })),
    retryRequired: t.Boolean(),
    pendingAtExpiry: t.Boolean(),
    txSignature: Nullable(t.String()),
    detectedAt: Nullable(Iso),
    ataRentLamports: Nullable(Int({ minimum: 0 })),
    ttlSeconds: Int({ minimum: 1 }),
    confirmedAt: Nullable(Iso),
    finalizedAt: Nullable(Iso),
    metadata: t.Record(t.String(), t.String()),
    refundedBy: Nullable(t.String({ pattern: '^pi_[0-9A-Za-z]+$', description: 'The newest refund intent' })),
    refundOf: Nullable(t.String({ pattern: '^pi_[0-9A-Za-z]+$', description: 'On a refund: the intent it refunds' })),
    refunds: t.Array(t.String({ pattern: '^pi_[0-9A-Za-z]+$' }), { description: 'Every refund intent of this one, oldest first; refundedBy is the newest' }),
    failureReason: Nullable(t.String({ description: 'Set when failed: insufficient_balance, revert, slippage, or what the chain said' })),
    solanaReference: Nullable(t.String({ description: 'Solana family: base58 Solana Pay reference key carried by every built transaction; null on EVM' })),
    paymentUri: t.String({ description: 'Solana Pay transfer request or EIP-681 URI: pay with no build (wallet link or QR code)' }),
    latePayment: Nullable(LatePayment),
    payToken: Nullable(t.String({ pattern: '^pt_[0-9A-Za-z]{32}$', description: 'The payer\'s capability for the payment page' })),
    payUrl: Nullable(t.String({ description: '<publicUrl>/pay/<payToken>: send this link to the payer' })),
  },
  { additionalProperties: false, title: 'PaymentIntent' },
);

export const IntentResponse = t.Object({ intent: PaymentIntent }, { title: 'IntentResponse' });

export const Transaction = t.Object(
  {
    blob: t.String({ contentEncoding: 'base64', description: 'base64 of the unsigned transaction' }),
    format: Enum(['solana_v0_message', 'evm_eip1559'], { title: 'TransactionFormat' }),
    ataRentLamports: Nullable(Int({ minimum: 0 })),
    estimatedFeeLamports: Nullable(Int({ minimum: 0 })),
    estimatedFeeUsdc: Nullable(t.String({ description: 'Decimal USDC' })),
    estimatedFeeEth: Nullable(t.String({ description: 'Decimal ETH' })),
  },
  { title: 'Transaction' },
);

export const CreateIntentBody = t.Object(
  {
    chain: t.String({ maxLength: 64, description: 'CAIP-2 chain id', examples: ['eip155:84532'] }),
    token: t.String({ maxLength: 64, examples: ['USDC'] }),
    amount: t.String({
      maxLength: MAX_AMOUNT_CHARS,
      description: 'Decimal string > 0, at most the token\'s decimals; at most 2^256-1 base units on EVM, 2^64-1 on Solana',
      examples: ['12.34'],
    }),
    requestor: Address('Wallet address that receives the payment'),
    reference: t.Optional(Nullable(t.String({ maxLength: 256 }))),
    ttlSeconds: t.Optional(Int({ description: 'Default 900; from 60 to 604800 (configurable)', examples: [900] })),
    metadata: t.Optional(Metadata),
    fulfiller: t.Optional(Nullable(Address('Wallet address that will pay'))),
    direction: t.Optional(t.Literal('request')),
    idempotencyKey: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
  },
  { ...Exact, title: 'CreateIntentRequest' },
);

export const UpdateIntentBody = t.Object(
  {
    updatedAt: t.String({ maxLength: 64, description: 'The intent\'s current updatedAt (optimistic concurrency)' }),
    reference: t.Optional(Nullable(t.String({ maxLength: 256 }))),
    metadata: t.Optional(Metadata),
  },
  { ...Exact, title: 'UpdateIntentRequest' },
);

export const ListIntentsQuery = t.Object(
  {
    // Parsed by hand (parseLimit) so that 0, 101 and "abc" all answer 400 with param limit.
    limit: t.Optional(LimitParam),
    starting_after: t.Optional(t.String({ maxLength: 64, description: 'An intent id: the page after it (empty = from the newest)' })),
    state: t.Optional(Enum(INTENT_STATES, { title: 'IntentState' })),
    reference: t.Optional(t.String({ maxLength: 256 })),
  },
  Exact,
);

export const ListIntentsResponse = t.Object({ intents: t.Array(PaymentIntent), hasMore: t.Boolean() }, { title: 'IntentList' });

export const BuildBody = t.Object({ fulfiller: t.Optional(Address('Wallet address that will pay')) }, { ...Exact, title: 'BuildRequest' });
export const BuildResponse = t.Object({ intent: PaymentIntent, transaction: Transaction }, { title: 'BuildResponse' });

export const SubmitBody = t.Object(
  {
    signedTransaction: t.Optional(
      t.String({ maxLength: 262_144, description: 'base64 of the signed transaction (exactly one of signedTransaction, txSignature)' }),
    ),
    txSignature: t.Optional(t.String({ maxLength: 128, description: 'id of a transaction the wallet already sent: Solana signature or EVM hash' })),
    fulfiller: t.Optional(Address('Wallet address that signed')),
  },
  { ...Exact, title: 'SubmitRequest' },
);
export const SubmitResponse = t.Object({ intent: PaymentIntent, txSignature: t.String() }, { title: 'SubmitResponse' });

export const SimulateBody = t.Object(
  {
    targetState: Enum(SIMULATE_TARGETS),
    failureReason: t.Optional(Enum(['insufficient_balance', 'revert', 'slippage'], { description: 'Default revert' })),
  },
  { ...Exact, title: 'SimulateRequest' },
);

export const IdParams = t.Object({ id: t.String({ maxLength: 64 }) });

export const EventEnvelope = t.Object(
  {
    eventId: t.String({ pattern: '^evt_[0-9A-Za-z]+$' }),
    type: Enum(EVENT_TYPES, { title: 'EventType' }),
    createdAt: Iso,
    livemode: t.Boolean(),
    // payment.unmatched carries the payment record; every other event the intent.
    data: t.Union([
      t.Object({ intent: PaymentIntent }, { title: 'IntentEventData' }),
      t.Object({ payment: Payment }, { title: 'PaymentEventData' }),
    ]),
  },
  { title: 'Event', description: 'The envelope every webhook delivers' },
);

export const ErrorResponse = t.Object(
  {
    error: t.Object({
      code: Enum(ERROR_CODES, { title: 'ErrorCode', description: 'Stable, machine-readable: resource.error_type' }),
      message: t.String({ description: 'For people: what went wrong and what to do' }),
      param: Nullable(t.String({ description: 'The field at fault, or null' })),
      details: t.Record(t.String(), t.Unknown()),
    }),
  },
  { title: 'Error', description: 'The error envelope of every 4xx and 5xx' },
);

/**
 * The error statuses an operation can answer, for the OpenAPI document (errors leave through
 * onError as ready Responses, so these schemas describe them without validating them). Every
 * operation may answer 503 `store.unavailable` on PostgreSQL (contract section 13).
 */
export function errorResponses<const S extends readonly number[]>(...statuses: S): { [K in S[number]]: typeof ErrorResponse } {
  return Object.fromEntries([...statuses, 401, 429, 500, 503].map((code) => [code, ErrorResponse])) as { [K in S[number]]: typeof ErrorResponse };
}
