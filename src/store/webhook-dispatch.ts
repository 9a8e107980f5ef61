// The dispatcher's operations on webhook_deliveries, each one whole transaction: claim due rows
// fairly (lease them, reading what the send needs in the same statement), record attempts
// (fenced by the lease value), give leases back; committed without an fsync. The backoff policy
// stays in src/webhooks; this is the SQL (and, on SQLite, the claim's fairness: webhook-claim.ts).
import type { Mode } from '../domain/intent';
import type { Awaitable, Sync } from './awaitable';
import type { Db } from './db';
import { claimFairly, type ClaimArgs } from './webhook-claim';

export type { ClaimArgs };

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


/**
 * Every operation is one transaction committed without an fsync (synchronous=NORMAL on SQLite):
 * only an OS crash can lose the last few, and losing a claim or a record just means a lease runs
 * out and the row is sent again: at least once either way.
 */
export interface DispatchStore {
  /** Lease due rows fairly (at most `perEndpoint` per URL counting those in flight); returns them. */
  claim(a: ClaimArgs): Awaitable<ClaimedDelivery[]>;
  /** Write the records; returns how many rows were still ours (lease matched). */
  record(records: readonly AttemptRecord[]): Awaitable<number>;
  /** Give rows back without counting an attempt (dispatcher stopping mid-send). */
  release(rows: readonly LeaseRef[]): Awaitable<void>;
  /** record + release + claim (when `claim` is given) in ONE transaction: one commit per dispatcher tick. */
  recordAndClaim(records: readonly AttemptRecord[], releases: readonly LeaseRef[], claim: ClaimArgs | null): Awaitable<ClaimedDelivery[]>;
}

export interface SqliteDispatchStore extends Sync<DispatchStore> {
  /** Whether recordAndClaim with these arguments would write nothing and claim nothing (read only, no transaction). */
  idle(records: readonly AttemptRecord[], releases: readonly LeaseRef[], claim: ClaimArgs | null): boolean;
}

export function createDispatchStore(db: Db): SqliteDispatchStore {
  const sqlite = db.sqlite;
  // Oldest due first along webhook_deliveries_due (pending rows by next_attempt_at, covering url
  // and lease_until): no sort, and no table read per candidate; leased rows and rows of the
  // saturated URLs passed in are skipped inside the index. The cost is the index entries read,
  // not the whole backlog.
  const due = `SELECT seq, url FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= ?1 AND next_attempt_at >= ?2 AND (lease_until IS NULL OR lease_until < ?1)`;
  const candidates = sqlite.prepare<{ seq: number; url: string }, [number, number, number, string]>(
    `${due} AND url NOT IN (SELECT value FROM json_each(?4)) ORDER BY next_attempt_at LIMIT ?3`,
  );
  // The same without the URL filter, for the usual claim with no URL at its limit: the NOT IN over
  // json_each, checked per index entry, cost about as much as reading the window itself.
  const candidatesAll = sqlite.prepare<{ seq: number; url: string }, [number, number, number]>(`${due} ORDER BY next_attempt_at LIMIT ?3`);
  // By primary key (+status keeps SQLite off the pending-only due index, which would scan every pending row).
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
  const releaseRows = (rows: readonly LeaseRef[]) => {
    for (const r of rows) releaseOne.run(r.id, r.leaseUntil);
  };
  const statements = {
    dueCandidates: (now: number, skipUrls: readonly string[], limit: number, since: number) =>
      skipUrls.length === 0 ? candidatesAll.all(now, since, limit) : candidates.all(now, since, limit, JSON.stringify(skipUrls)),
    lease: (seqs: readonly number[], leaseUntil: number, now: number) => (seqs.length === 0 ? [] : lease.all(leaseUntil, JSON.stringify(seqs), now)),
  };

  const syncLevel = (sqlite.query('PRAGMA synchronous').get() as { synchronous: number }).synchronous;
  const relaxed = sqlite.prepare('PRAGMA synchronous = NORMAL');
  const restore = sqlite.prepare(`PRAGMA synchronous = ${syncLevel}`);
  const inTransaction = sqlite.transaction((fn: () => unknown) => fn());
  /** One BEGIN IMMEDIATE transaction at synchronous=NORMAL; the connection's own level is restored after. */
  function relaxedTransaction<T>(fn: () => T): T {
    // The group committer's batch never spans a turn of the event loop, so this cannot meet it;
    // should it ever, fail clearly (the dispatcher retries) rather than join its transaction.
    if (sqlite.inTransaction) throw new Error('webhook dispatch: the connection is inside another transaction; retry');
    if (syncLevel <= 1) return inTransaction.immediate(fn) as T;
    relaxed.run();
    try {
      return inTransaction.immediate(fn) as T;
    } finally {
      restore.run();
    }
  }

  // The same claim as a plain read that leases nothing: whether it would find a row now.
  const look = { dueCandidates: statements.dueCandidates, lease: (seqs: readonly number[]) => [...seqs] };
  /**
   * Nothing to write and nothing the claim would find (a wake or poll while every URL it reaches is
   * at its limit, or nothing is due): known from a read, without BEGIN IMMEDIATE, whose write lock
   * the server's batches queue behind. A row due a moment later is found by the next wake or poll,
   * as if the transaction had run a moment earlier.
   */
  const idle = (records: readonly AttemptRecord[], releases: readonly LeaseRef[], claim: ClaimArgs | null) =>
    records.length === 0 && releases.length === 0 && (claim === null || claimFairly(look, claim).length === 0);

  return {
    idle,
    claim: (a) => relaxedTransaction(() => claimFairly(statements, a)),
    record: (records) => (records.length === 0 ? 0 : relaxedTransaction(() => recordRows(records))),
    release: (rows) => void (rows.length > 0 && relaxedTransaction(() => releaseRows(rows))),
    recordAndClaim: (records, releases, claim) =>
      idle(records, releases, claim)
        ? []
        : relaxedTransaction(() => {
            recordRows(records);
            releaseRows(releases);
            return claim ? claimFairly(statements, claim) : [];
          }),
  };
}
