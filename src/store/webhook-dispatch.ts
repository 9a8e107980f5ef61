// The dispatcher's operations on webhook_deliveries: claim due rows fairly (lease them and read
// what the send needs), record attempts (fenced by the lease value), give leases back; writes
// committed without an fsync. The backoff policy stays in src/webhooks; this is the SQL (and, on
// SQLite, the claim's fairness: webhook-claim.ts).
//
// On SQLite the leases are held in memory, not in the rows: exactly one `serve` holds the file
// (the instance lease, instance-lease.ts) and one dispatcher runs in it, so nobody else would read
// a lease written to the row. A claimed row stays pending and unleased in the table until its
// attempt is recorded; after a crash nothing holds it, which is what an expired lease gives (only
// sooner). Writing the lease rewrote the row and its entry in the due index once more per
// delivery (README Decisions). So a claim writes nothing: it is a read, outside any write lock, and
// only records take one (BEGIN IMMEDIATE). lease_until is still honoured when set (rows leased by an older
// version) and cleared by a record. PostgreSQL (several instances) keeps its leases in the rows.
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
  seq: number;
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
  seq: number;
  id: string;
  leaseUntil: number;
}


/**
 * Every write is one transaction committed without an fsync (synchronous=NORMAL on SQLite): only
 * an OS crash can lose the last few, and losing a claim or a record just means a lease runs out
 * (on SQLite: is gone with the process) and the row is sent again: at least once either way.
 */
export interface DispatchStore {
  /** Lease due rows fairly (at most `perEndpoint` per URL counting those in flight); returns them. */
  claim(a: ClaimArgs): Awaitable<ClaimedDelivery[]>;
  /** Write the records; returns how many rows were still ours (lease matched). */
  record(records: readonly AttemptRecord[]): Awaitable<number>;
  /** Give rows back without counting an attempt (dispatcher stopping mid-send). */
  release(rows: readonly LeaseRef[]): Awaitable<void>;
  /**
   * record + release, then claim (when `claim` is given): PostgreSQL in one transaction (one
   * commit per dispatcher tick; a claim alone is one statement); SQLite writes only the records
   * (one transaction, none when there are none) and its claim is a read.
   */
  recordAndClaim(records: readonly AttemptRecord[], releases: readonly LeaseRef[], claim: ClaimArgs | null): Awaitable<ClaimedDelivery[]>;
}

export type SqliteDispatchStore = Sync<DispatchStore> & {
  /** The highest `seq` the last claim's transaction read (candidates and leased rows); 0 when none. */
  highestSeen(): number;
};

export function createDispatchStore(db: Db): SqliteDispatchStore {
  const sqlite = db.sqlite;
  // The leases this dispatcher holds: seq → lease value (the fencing token its records carry). A
  // row is ours while its value is at or after now, as a lease_until in the row would be.
  const held = new Map<number, number>();
  const holds = (seq: number, now: number) => (held.get(seq) ?? -Infinity) >= now;
  // Oldest due first along webhook_deliveries_due (pending rows by next_attempt_at, covering url
  // and lease_until): no sort, and no table read per candidate; rows leased in the table and rows
  // of the saturated URLs passed in are skipped inside the index. The cost is the index entries
  // read, not the whole backlog. Rows this dispatcher holds are in it too (they stay pending and
  // unleased in the table): passed over in JS.
  const due = `SELECT seq, url FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= ?1 AND next_attempt_at >= ?2 AND (lease_until IS NULL OR lease_until < ?1)`;
  const candidates = sqlite.prepare<{ seq: number; url: string }, [number, number, number, string]>(
    `${due} AND url NOT IN (SELECT value FROM json_each(?4)) ORDER BY next_attempt_at LIMIT ?3`,
  );
  // The same without the URL filter, for the usual claim with no URL at its limit: the NOT IN over
  // json_each, checked per index entry, cost about as much as reading the window itself.
  const candidatesAll = sqlite.prepare<{ seq: number; url: string }, [number, number, number]>(`${due} ORDER BY next_attempt_at LIMIT ?3`);
  // What the send needs, read by primary key at the claim (+status keeps SQLite off the
  // pending-only due index, which would scan every pending row); the due guard is repeated.
  const read = sqlite.prepare<ClaimedDelivery, [number, string, number]>(
    `SELECT d.seq, d.id, d.event_id AS eventId, d.account_id AS accountId, d.mode, d.url,
            d.attempt_count AS attemptCount, d.created_at AS createdAt, ?1 AS leaseUntil,
            (SELECT payload FROM events e WHERE e.id = d.event_id) AS payload,
            w.secret AS secret, w.previous_secret AS previousSecret, w.previous_secret_expires_at AS previousSecretExpiresAt
       FROM webhook_deliveries d LEFT JOIN webhook_endpoints w ON w.account_id = d.account_id AND w.mode = d.mode
      WHERE d.seq IN (SELECT value FROM json_each(?2))
        AND +d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until < ?3)`,
  );
  // Fenced by the attempt count the claim read (one dispatcher: the in-memory lease fences the rest).
  const update = sqlite.prepare<
    unknown,
    [string, number, number, number | null, string | null, number | null, number | null, number | null, number, number]
  >(
    `UPDATE webhook_deliveries
        SET status = ?1, attempt_count = ?2, last_attempted_at = ?3, response_status = ?4, last_error = ?5,
            next_attempt_at = COALESCE(?6, next_attempt_at), delivered_at = ?7, failed_at = ?8, lease_until = NULL
      WHERE seq = ?9 AND attempt_count = ?10 AND status = 'pending'`,
  );
  // What a transaction does to `held`, applied once it has committed (a rolled-back one leaves it).
  let taken: Array<[number, number]> = [];
  let done: number[] = [];
  // The highest seq the current claim's transaction has read (dispatch-connection.ts: its durability gate).
  let highest = 0;
  const recordRows = (records: readonly AttemptRecord[]) => {
    let applied = 0;
    for (const r of records) {
      // Not ours any more (our lease ran out and another claim took the row): dropped.
      if (held.get(r.seq) !== r.leaseUntil) continue;
      done.push(r.seq);
      const res = update.run(
        r.status,
        r.attemptCount,
        r.attemptedAt,
        r.responseStatus,
        r.error,
        r.nextAttemptAt,
        r.status === 'delivered' ? r.attemptedAt : null,
        r.status === 'failed' ? r.attemptedAt : null,
        r.seq,
        r.attemptCount - 1,
      );
      applied += res.changes;
    }
    return applied;
  };
  /** Leases are in memory: giving them back writes nothing. */
  const releaseRows = (rows: readonly LeaseRef[]) => {
    for (const r of rows) if (held.get(r.seq) === r.leaseUntil) held.delete(r.seq);
  };
  const dueCandidates = (now: number, skipUrls: readonly string[], limit: number, since: number) => {
    // A lease that ran out with neither record nor release (an attempt that crashed) is dropped,
    // so `held` stays what is in flight or claimed ahead (at most twice the concurrency).
    if (held.size > 256) for (const [seq, until] of held) if (until < now) held.delete(seq);
    // Our own rows are among the oldest due: read past as many as we hold, so `limit` others
    // still fit (and a window that comes back short still means the end of the due rows).
    const ours = held.size;
    const rows =
      skipUrls.length === 0 ? candidatesAll.all(now, since, limit + ours) : candidates.all(now, since, limit + ours, JSON.stringify(skipUrls));
    for (const r of rows) if (r.seq > highest) highest = r.seq;
    return ours === 0 ? rows : rows.filter((r) => !holds(r.seq, now));
  };
  const statements = {
    dueCandidates,
    lease: (seqs: readonly number[], leaseUntil: number, now: number) => {
      if (seqs.length === 0) return [];
      const rows = read.all(leaseUntil, JSON.stringify(seqs), now);
      for (const r of rows) taken.push([r.seq, leaseUntil]);
      return rows;
    },
  };

  const syncLevel = (sqlite.query('PRAGMA synchronous').get() as { synchronous: number }).synchronous;
  const relaxed = sqlite.prepare('PRAGMA synchronous = NORMAL');
  const restore = sqlite.prepare(`PRAGMA synchronous = ${syncLevel}`);
  const inTransaction = sqlite.transaction((fn: () => unknown) => fn());
  /** Records: one BEGIN IMMEDIATE transaction at synchronous=NORMAL; the leases they end count once it committed. */
  function writeRecords(records: readonly AttemptRecord[]): number {
    done = [];
    const applied = relaxedTransactionOnly(() => recordRows(records));
    for (const seq of done) held.delete(seq);
    return applied;
  }
  /** One BEGIN IMMEDIATE transaction at synchronous=NORMAL; the connection's own level is restored after. */
  function relaxedTransactionOnly<T>(fn: () => T): T {
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
  /**
   * A claim is a read: the leases are this store's memory, so it writes nothing and takes no write
   * lock (BEGIN IMMEDIATE would queue the server's batches behind it). One deferred transaction:
   * the window and the rows it picks are read from one snapshot. Leases count once it has ended.
   */
  function claimRows(a: ClaimArgs): ClaimedDelivery[] {
    if (sqlite.inTransaction) throw new Error('webhook dispatch: the connection is inside another transaction; retry');
    taken = [];
    highest = 0;
    const rows = inTransaction.deferred(() => claimFairly(statements, a)) as ClaimedDelivery[];
    for (const [seq, until] of taken) held.set(seq, until);
    return rows;
  }

  return {
    highestSeen: () => highest,
    claim: claimRows,
    record: (records) => (records.length === 0 ? 0 : writeRecords(records)),
    release: (rows) => releaseRows(rows),
    // Records first (rows they end are no longer held), then the claim: a write transaction only
    // when there are records, the claim a read either way.
    recordAndClaim: (records, releases, claim) => {
      releaseRows(releases);
      if (records.length > 0) writeRecords(records);
      return claim ? claimRows(claim) : [];
    },
  };
}
