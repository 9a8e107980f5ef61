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
