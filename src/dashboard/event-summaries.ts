// What each event means, in one line: shown on hover wherever the dashboard lists events (an
// intent's timeline, the live view). Typed by EVENT_TYPES, so a new event type needs its line.
import type { EventType } from '../domain/intent';

export const EVENT_SUMMARIES: Readonly<Record<EventType, string>> = {
  'intent.created': 'The intent was created (a refund intent too); it waits for a payment.',
  'intent.pending': 'A transaction paying it was broadcast or found on chain (or a reorg moved it back); waiting for confirmations.',
  'intent.confirmed': 'The payment has the configured confirmations; not final yet.',
  'intent.finalized': 'The payment is final on chain.',
  'intent.failed': 'The transaction failed on chain; failureReason says why.',
  'intent.expired': 'Its time ran out before a payment.',
  'intent.cancelled': 'Cancelled before any payment; it can no longer be paid.',
  'intent.retry_required': 'The transaction was dropped (state dropped): build and submit again.',
  'intent.detected': 'The fulfiller reported seeing the payment (POST /detected); the state does not change.',
  'intent.late_payment': 'Money arrived after the intent closed; latePayment has the transfer.',
  'payment.unmatched': 'A transfer to a watched address moved no intent; see Payments.',
};

/** The line for an event type, or '' for one this build does not know. */
export const eventSummary = (type: string): string => (Object.hasOwn(EVENT_SUMMARIES, type) ? EVENT_SUMMARIES[type as EventType] : '');
