// Claiming due deliveries with a lease (bun:sqlite has no SKIP LOCKED; a dead process's lease
// just runs out and the row is claimed again). Fair: at most `perEndpoint` rows per URL counting
// those already in flight, and URLs at their limit are skipped in the scan, so a backlog to one
// slow or dead receiver cannot fill the batch and starve other accounts.
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
  /**
   * false = one round over the oldest due rows only (cheap: after a send completes). true = scan
   * past every saturated URL to the end of the backlog (after a wake or poll), so rows behind a
   * big backlog to a saturated URL are found within one poll interval at worst.
   */
  deep: boolean;
}

export type Claimer = (a: ClaimArgs) => ClaimedDelivery[];

export function createClaimer(sqlite: Db['sqlite']): Claimer {
  // Oldest due first along the (status, next_attempt_at) index; no sort, no window: the cost is
  // the rows read, not the whole backlog. Saturated URLs are passed in and skipped.
  const candidates = sqlite.prepare<{ seq: number; url: string }, [number, string, number]>(
    `SELECT seq, url FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= ?1 AND (lease_until IS NULL OR lease_until < ?1)
        AND url NOT IN (SELECT value FROM json_each(?2))
      ORDER BY next_attempt_at LIMIT ?3`,
  );
  // By primary key (+status keeps SQLite off the status index, which would scan every pending row).
  // The due/lease guard is repeated: a row another process leased meanwhile is simply not returned.
  const lease = sqlite.prepare<ClaimedDelivery, [number, string, number]>(
    `UPDATE webhook_deliveries SET lease_until = ?1
      WHERE seq IN (SELECT value FROM json_each(?2))
        AND +status = 'pending' AND (lease_until IS NULL OR lease_until < ?3)
      RETURNING seq, id, event_id AS eventId, account_id AS accountId, mode, url,
                attempt_count AS attemptCount, created_at AS createdAt, lease_until AS leaseUntil`,
  );
  return (a) => {
    const taken = new Map(a.inFlight);
    const seqs: number[] = [];
    const full = () => [...taken].filter(([, n]) => n >= a.perEndpoint).map(([u]) => u);
    // Each round skips the URLs filled so far; a round that returns fewer rows than asked has
    // seen every due row of the remaining URLs.
    for (let round = 0; round < (a.deep ? 8 : 1) && seqs.length < a.limit; round++) {
      const want = Math.max(64, (a.limit - seqs.length) * 4);
      const rows = candidates.all(a.now, JSON.stringify(full()), want);
      for (const r of rows) {
        if (seqs.length >= a.limit) break;
        const n = taken.get(r.url) ?? 0;
        if (n >= a.perEndpoint) continue;
        taken.set(r.url, n + 1);
        seqs.push(r.seq);
      }
      if (rows.length < want) break;
    }
    return seqs.length === 0 ? [] : lease.all(a.leaseUntil, JSON.stringify(seqs), a.now);
  };
}
