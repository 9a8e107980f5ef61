// The lifecycle fields of an intent that was just created (by create or by refund): nothing
// has happened to it yet. One place, so a new column cannot be forgotten by one of them.

export const FRESH_LIFECYCLE = {
  retryRequired: false,
  pendingAtExpiry: false,
  txSignature: null,
  detectedAt: null,
  ataRentLamports: null,
  confirmedAt: null,
  finalizedAt: null,
  failureReason: null,
  refundedBy: null,
  refunds: [],
  buildData: null,
  signedTransaction: null,
  watchData: null,
  latePayment: null,
} as const;

type Fresh = { -readonly [K in keyof typeof FRESH_LIFECYCLE]: (typeof FRESH_LIFECYCLE)[K] };

/**
 * `o` with the fields above added in place, in the same order (a create's new literal: no copy of
 * it). `{ ...fields, ...FRESH_LIFECYCLE }` copied them generically, ~0.15 µs more per create on
 * the event loop. test/intents/fresh-intent.test.ts holds the two equal.
 */
export function withFreshLifecycle<T extends object>(o: T): T & Fresh {
  const r = o as T & Fresh;
  r.retryRequired = false;
  r.pendingAtExpiry = false;
  r.txSignature = null;
  r.detectedAt = null;
  r.ataRentLamports = null;
  r.confirmedAt = null;
  r.finalizedAt = null;
  r.failureReason = null;
  r.refundedBy = null;
  r.refunds = FRESH_LIFECYCLE.refunds;
  r.buildData = null;
  r.signedTransaction = null;
  r.watchData = null;
  r.latePayment = null;
  return r;
}
