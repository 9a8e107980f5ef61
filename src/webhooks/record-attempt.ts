// Recording the outcome of attempts: delivered, retry later (backoff), or failed for good.
// Fenced by the lease value the claim wrote: if our lease ran out and another dispatcher took
// the row, our late record is dropped instead of double counting. Records are written in
// batches, one short synchronous transaction (one fsync) for many attempts.
import type { Db } from '../store/db';
import { nextAttemptAt } from './backoff';
import type { ClaimedDelivery } from './claim';
import type { SendOutcome } from './send';

export interface AttemptRecord {
  id: string;
  /** The claim's lease value (fencing token). */
  leaseUntil: number;
  status: 'pending' | 'delivered' | 'failed';
  attemptCount: number;
  attemptedAt: number;
  responseStatus: number | null;
  error: string | null;
  /** For a pending row: when to try again. */
  nextAttemptAt: number | null;
}

/** Pure: what the row becomes after this attempt. */
export function decideAttempt(
  d: ClaimedDelivery,
  outcome: SendOutcome,
  now: number,
  schedule: readonly number[],
  random?: () => number,
): AttemptRecord {
  const attemptCount = d.attemptCount + 1;
  const base = { id: d.id, leaseUntil: d.leaseUntil, attemptCount, attemptedAt: now, responseStatus: outcome.status, error: outcome.error };
  if (outcome.ok) return { ...base, status: 'delivered', nextAttemptAt: null };
  const next = nextAttemptAt(schedule, attemptCount, now, d.createdAt, random);
  return next === null ? { ...base, status: 'failed', nextAttemptAt: null } : { ...base, status: 'pending', nextAttemptAt: next };
}

export interface Recorder {
  /** Write the records in one transaction; returns how many rows were still ours. */
  record(records: readonly AttemptRecord[]): number;
  /** Give rows back without counting an attempt (dispatcher stopping mid-send). */
  release(rows: ReadonlyArray<{ id: string; leaseUntil: number }>): void;
}

export function createRecorder(sqlite: Db['sqlite']): Recorder {
  const update = sqlite.prepare<unknown, [string, number, number, number | null, string | null, number | null, number | null, number | null, string, number]>(
    `UPDATE webhook_deliveries
        SET status = ?1, attempt_count = ?2, last_attempted_at = ?3, response_status = ?4, last_error = ?5,
            next_attempt_at = COALESCE(?6, next_attempt_at), delivered_at = ?7, failed_at = ?8, lease_until = NULL
      WHERE id = ?9 AND lease_until = ?10 AND status = 'pending'`,
  );
  const release = sqlite.prepare<unknown, [string, number]>(
    'UPDATE webhook_deliveries SET lease_until = NULL WHERE id = ? AND lease_until = ? AND status = \'pending\'',
  );
  const recordAll = sqlite.transaction((records: readonly AttemptRecord[]) => {
    let applied = 0;
    for (const r of records) {
      const res = update.run(
        r.status,
        r.attemptCount,
        r.attemptedAt,
        r.responseStatus,
        r.error,
        r.nextAttemptAt,
        r.status === 'delivered' ? r.attemptedAt : null,
        r.status === 'failed' ? r.attemptedAt : null,
        r.id,
        r.leaseUntil,
      );
      applied += res.changes;
    }
    return applied;
  });
  const releaseAll = sqlite.transaction((rows: ReadonlyArray<{ id: string; leaseUntil: number }>) => {
    for (const r of rows) release.run(r.id, r.leaseUntil);
  });
  return {
    record: (records) => (records.length === 0 ? 0 : recordAll.immediate(records)),
    release: (rows) => void (rows.length > 0 && releaseAll.immediate(rows)),
  };
}
