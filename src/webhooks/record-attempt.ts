// Deciding the outcome of an attempt: delivered, retry later (backoff), or failed for good. The
// store writes it fenced by the lease value the claim wrote (src/store/webhook-dispatch.ts): if
// our lease ran out and another dispatcher took the row, our late record is dropped.
import type { AttemptRecord, ClaimedDelivery } from '../store/webhook-dispatch';
import { nextAttemptAt } from './backoff';
import type { SendOutcome } from './send';

/** Pure: what the row becomes after this attempt. */
export function decideAttempt(
  d: ClaimedDelivery,
  outcome: SendOutcome,
  now: number,
  schedule: readonly number[],
  random?: () => number,
): AttemptRecord {
  const attemptCount = d.attemptCount + 1;
  const base = { seq: d.seq, id: d.id, leaseUntil: d.leaseUntil, attemptCount, attemptedAt: now, responseStatus: outcome.status, error: outcome.error };
  if (outcome.ok) return { ...base, status: 'delivered', nextAttemptAt: null };
  const next = nextAttemptAt(schedule, attemptCount, now, d.createdAt, random);
  return next === null ? { ...base, status: 'failed', nextAttemptAt: null } : { ...base, status: 'pending', nextAttemptAt: next };
}
