// The dispatcher's statements on webhook_deliveries: find due rows, lease them (reading what the
// send needs in the same statement), record attempts (fenced by the lease value), give leases
// back, and commit all of it without an fsync. The policy (fairness, backoff) stays in src/webhooks; this is the SQL.
import type { Mode } from '../domain/intent';
import type { Db } from './db';

export interface ClaimedDelivery {
  seq: number;
  id: string;
  eventId: string;
  accountId: string;
  mode: Mode;
  url: string;
  attemptCount: number;
  createdAt: number;
  /** The lease value written: the fencing token an attempt's record checks. */
  leaseUntil: number;
  /**
   * What the send needs, read in the claim itself (the moment before the send: a rotation still
   * applies to the next attempt at once); null columns = gone.
   */
  payload: string | null;
  secret: string | null;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
}

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

export interface LeaseRef {
  id: string;
  leaseUntil: number;
}

export interface DispatchStore {
  /**
   * The oldest due, unleased pending rows (at most `limit`), skipping rows to `skipUrls`; only rows
   * due at or after `since` (0: all), so a look at what was just queued skips the backlog's index range.
   */
  dueCandidates(now: number, skipUrls: readonly string[], limit: number, since?: number): Array<{ seq: number; url: string }>;
  /** Lease the rows of `seqs` that are still due and unleased; returns those it leased. */
  lease(seqs: readonly number[], leaseUntil: number, now: number): ClaimedDelivery[];
  /** Write the records in one transaction; returns how many rows were still ours (lease matched). */
  record(records: readonly AttemptRecord[]): number;
  /** Give rows back without counting an attempt (dispatcher stopping mid-send). */
  release(rows: readonly LeaseRef[]): void;
  /**
   * Run `fn` in one BEGIN IMMEDIATE transaction committed with synchronous=NORMAL (no fsync; WAL
   * keeps it atomic and safe across a process crash). Only an OS crash can lose the last few, and
   * losing a claim or a record just means a lease runs out and the row is sent again: at least
   * once either way. The connection's own setting (FULL, for transitions) is restored after.
   */
  relaxedTransaction<T>(fn: () => T): T;
}

export function createDispatchStore(db: Db): DispatchStore {
  const sqlite = db.sqlite;
  // Oldest due first along the (status, next_attempt_at) index; no sort, no window: the cost is
  // the rows read, not the whole backlog. Saturated URLs are passed in and skipped.
  const candidates = sqlite.prepare<{ seq: number; url: string }, [number, string, number, number]>(
    `SELECT seq, url FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= ?1 AND next_attempt_at >= ?4 AND (lease_until IS NULL OR lease_until < ?1)
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
                attempt_count AS attemptCount, created_at AS createdAt, lease_until AS leaseUntil,
                (SELECT payload FROM events e WHERE e.id = event_id) AS payload,
                (SELECT secret FROM webhook_endpoints w WHERE w.account_id = webhook_deliveries.account_id AND w.mode = webhook_deliveries.mode) AS secret,
                (SELECT previous_secret FROM webhook_endpoints w WHERE w.account_id = webhook_deliveries.account_id AND w.mode = webhook_deliveries.mode) AS previousSecret,
                (SELECT previous_secret_expires_at FROM webhook_endpoints w WHERE w.account_id = webhook_deliveries.account_id AND w.mode = webhook_deliveries.mode) AS previousSecretExpiresAt`,
  );
  const update = sqlite.prepare<
    unknown,
    [string, number, number, number | null, string | null, number | null, number | null, number | null, string, number]
  >(
    `UPDATE webhook_deliveries
        SET status = ?1, attempt_count = ?2, last_attempted_at = ?3, response_status = ?4, last_error = ?5,
            next_attempt_at = COALESCE(?6, next_attempt_at), delivered_at = ?7, failed_at = ?8, lease_until = NULL
      WHERE id = ?9 AND lease_until = ?10 AND status = 'pending'`,
  );
  const releaseOne = sqlite.prepare<unknown, [string, number]>(
    "UPDATE webhook_deliveries SET lease_until = NULL WHERE id = ? AND lease_until = ? AND status = 'pending'",
  );
  const recordRows = (records: readonly AttemptRecord[]) => {
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
  };
  const recordAll = sqlite.transaction(recordRows);
  const releaseRows = (rows: readonly LeaseRef[]) => {
    for (const r of rows) releaseOne.run(r.id, r.leaseUntil);
  };
  const releaseAll = sqlite.transaction(releaseRows);

  const syncLevel = (sqlite.query('PRAGMA synchronous').get() as { synchronous: number }).synchronous;
  const relaxed = sqlite.prepare('PRAGMA synchronous = NORMAL');
  const restore = sqlite.prepare(`PRAGMA synchronous = ${syncLevel}`);
  const inTransaction = sqlite.transaction((fn: () => unknown) => fn());

  return {
    dueCandidates: (now, skipUrls, limit, since = 0) => candidates.all(now, JSON.stringify(skipUrls), limit, since),
    lease: (seqs, leaseUntil, now) => (seqs.length === 0 ? [] : lease.all(leaseUntil, JSON.stringify(seqs), now)),
    // Inside the dispatcher's relaxedTransaction already: no savepoint around them (two statements each).
    record: (records) => (records.length === 0 ? 0 : sqlite.inTransaction ? recordRows(records) : recordAll.immediate(records)),
    release: (rows) => void (rows.length > 0 && (sqlite.inTransaction ? releaseRows(rows) : releaseAll.immediate(rows))),
    relaxedTransaction<T>(fn: () => T): T {
      if (syncLevel <= 1) return inTransaction.immediate(fn) as T;
      relaxed.run();
      try {
        return inTransaction.immediate(fn) as T;
      } finally {
        restore.run();
      }
    },
  };
}
