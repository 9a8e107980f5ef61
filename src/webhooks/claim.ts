// Claiming due deliveries: one UPDATE ... RETURNING takes a lease on them (bun:sqlite has no
// SKIP LOCKED; a dead process's lease just runs out and the row is claimed again).
// Fair by construction: at most `perEndpoint` rows per URL counting those already in flight, so
// a backlog to one dead receiver cannot fill the batch and starve other accounts.
import type { Db } from '../store/db';
import type { Mode } from '../domain/intent';

export interface ClaimedDelivery {
  seq: number;
  id: string;
  eventId: string;
  accountId: string;
  mode: Mode;
  url: string;
  attemptCount: number;
  createdAt: number;
  /** The lease value written: the fencing token recordAttempt checks. */
  leaseUntil: number;
}

export interface ClaimArgs {
  now: number;
  leaseUntil: number;
  /** Free slots overall. */
  limit: number;
  perEndpoint: number;
  /** Sends already in flight per URL (they count against perEndpoint). */
  inFlight: ReadonlyMap<string, number>;
}

export type Claimer = (a: ClaimArgs) => ClaimedDelivery[];

export function createClaimer(sqlite: Db['sqlite']): Claimer {
  // The due filter uses the (status, next_attempt_at) index; the window ranks rows per URL.
  const stmt = sqlite.prepare<ClaimedDelivery, [number, string, number, number, number]>(
    `UPDATE webhook_deliveries SET lease_until = ?1
      WHERE seq IN (
        SELECT seq FROM (
          SELECT d.seq, d.next_attempt_at,
                 ROW_NUMBER() OVER (PARTITION BY d.url ORDER BY d.next_attempt_at, d.seq)
                   + COALESCE((SELECT b.value FROM json_each(?2) b WHERE b.key = d.url), 0) AS rank
            FROM webhook_deliveries d
           WHERE d.status = 'pending' AND d.next_attempt_at <= ?3
             AND (d.lease_until IS NULL OR d.lease_until < ?3)
        ) WHERE rank <= ?4 ORDER BY next_attempt_at LIMIT ?5)
      RETURNING seq, id, event_id AS eventId, account_id AS accountId, mode, url,
                attempt_count AS attemptCount, created_at AS createdAt, lease_until AS leaseUntil`,
  );
  return (a) => {
    if (a.limit <= 0) return [];
    return stmt.all(a.leaseUntil, JSON.stringify(Object.fromEntries(a.inFlight)), a.now, a.perEndpoint, a.limit);
  };
}
