// The dispatcher's statements on PostgreSQL: claim due deliveries, record attempts (fenced by the
// lease value), give leases back. Several dispatchers (instances) claim at once: candidates are
// locked with FOR UPDATE SKIP LOCKED, so two claims never lease the same row (each skips the rows
// the other is leasing) and neither waits for the other. At least once: a lease that runs out
// (a dead instance) makes the row due again, and a late record of the old lease matches nothing.
import { SHALLOW_WINDOW, type ClaimArgs } from '../webhook-claim';
import type { AttemptRecord, ClaimedDelivery, LeaseRef } from '../webhook-dispatch';
import { atomically, changes, numbers, type Pg, type Row, rows } from './sql';

/** One claim, as the dispatcher asks for it: the SQLite claim's arguments (../webhook-claim.ts). */
export type DispatchClaimArgs = ClaimArgs;

export interface PgDispatchStore {
  claim(a: DispatchClaimArgs): Promise<ClaimedDelivery[]>;
  /** Write the records in one statement; how many rows were still ours (lease matched). */
  record(records: readonly AttemptRecord[]): Promise<number>;
  /** Give rows back without counting an attempt. */
  release(rows: readonly LeaseRef[]): Promise<void>;
  /** record + release + claim (when `claim` is given) in one transaction: one commit per dispatcher tick. */
  recordAndClaim(records: readonly AttemptRecord[], releases: readonly LeaseRef[], claim: DispatchClaimArgs | null): Promise<ClaimedDelivery[]>;
}

// One round, one statement (its own transaction on the pool): the oldest due, unleased rows not
// of a full URL (the window, locked, skipping rows another claim holds), ranked per URL after
// the slots already held, at most perEndpoint per URL and `limit` overall in due order: the
// SQLite claimer's greedy scan as one query. The window's size comes back so the caller knows
// whether it saw every due row.
const CLAIM = `WITH held AS (SELECT * FROM unnest($1::text[], $2::int[]) AS h(url, n)),
  cand AS (
    SELECT seq, url, next_attempt_at FROM webhook_deliveries
     WHERE status = 'pending' AND next_attempt_at <= $3::bigint AND next_attempt_at >= $4::bigint
       AND (lease_until IS NULL OR lease_until < $3::bigint) AND url <> ALL($5::text[])
     ORDER BY next_attempt_at LIMIT $6 FOR UPDATE SKIP LOCKED),
  ranked AS (
    SELECT c.seq, c.next_attempt_at,
           coalesce(h.n, 0) + row_number() OVER (PARTITION BY c.url ORDER BY c.next_attempt_at, c.seq) AS slot
      FROM cand c LEFT JOIN held h ON h.url = c.url),
  pick AS (SELECT seq FROM ranked WHERE slot <= $7 ORDER BY next_attempt_at, seq LIMIT $8)
  UPDATE webhook_deliveries d SET lease_until = $9::bigint FROM pick WHERE d.seq = pick.seq
  RETURNING d.seq, d.id, d.event_id AS "eventId", d.account_id AS "accountId", d.mode, d.url,
    d.attempt_count AS "attemptCount", d.created_at AS "createdAt", d.lease_until AS "leaseUntil", d.next_attempt_at AS due,
    (SELECT payload FROM events e WHERE e.id = d.event_id) AS payload,
    (SELECT secret FROM webhook_endpoints w WHERE w.account_id = d.account_id AND w.mode = d.mode) AS secret,
    (SELECT previous_secret FROM webhook_endpoints w WHERE w.account_id = d.account_id AND w.mode = d.mode) AS "previousSecret",
    (SELECT previous_secret_expires_at FROM webhook_endpoints w WHERE w.account_id = d.account_id AND w.mode = d.mode)
      AS "previousSecretExpiresAt",
    (SELECT count(*) FROM cand) AS scanned`;

const RECORD = `UPDATE webhook_deliveries d
    SET status = r.status, attempt_count = r.attempt_count, last_attempted_at = r.attempted_at, response_status = r.response_status,
        last_error = r.error, next_attempt_at = coalesce(r.next_attempt_at, d.next_attempt_at),
        delivered_at = CASE WHEN r.status = 'delivered' THEN r.attempted_at END,
        failed_at = CASE WHEN r.status = 'failed' THEN r.attempted_at END, lease_until = NULL
   FROM unnest($1::text[], $2::bigint[], $3::text[], $4::int[], $5::bigint[], $6::int[], $7::text[], $8::bigint[])
        AS r(id, lease_until, status, attempt_count, attempted_at, response_status, error, next_attempt_at)
  WHERE d.id = r.id AND d.lease_until = r.lease_until AND d.status = 'pending'`;

const RELEASE = `UPDATE webhook_deliveries d SET lease_until = NULL FROM unnest($1::text[], $2::bigint[]) AS r(id, lease_until)
  WHERE d.id = r.id AND d.lease_until = r.lease_until AND d.status = 'pending'`;

const NUMERIC = ['seq', 'attemptCount', 'createdAt', 'leaseUntil', 'previousSecretExpiresAt', 'due', 'scanned'];

export function createPgDispatchStore(q: Pg): PgDispatchStore {
  const store: PgDispatchStore = {
    async claim(a) {
      const held = new Map(a.inFlight);
      const claimed: ClaimedDelivery[] = [];
      // Each round skips the URLs filled so far; a round whose window was not full has seen every
      // due row of the remaining URLs (the same rounds and window sizes as ../webhook-claim.ts).
      for (let round = 0; round < (a.deep ? 8 : 1) && claimed.length < a.limit; round++) {
        const want = a.deep ? Math.max(64, (a.limit - claimed.length) * 4) : SHALLOW_WINDOW;
        // Only a deep look skips full URLs inside the index read (that walks all their due rows);
        // a shallow one stays a window of the oldest rows, whose full URLs' rows the ranking passes over.
        const full = a.deep ? [...held].filter(([, n]) => n >= a.perEndpoint).map(([u]) => u) : [];
        const got = numbers<ClaimedDelivery & { due: number; scanned: number }>(
          await rows<Row>(q, CLAIM, [
            [...held.keys()], [...held.values()], a.now, a.deep ? (a.since ?? 0) : 0, full, want, a.perEndpoint,
            a.limit - claimed.length, a.leaseUntil,
          ]),
          NUMERIC,
        ).sort((x, y) => x.due - y.due || x.seq - y.seq);
        for (const { due, scanned, ...row } of got) {
          claimed.push(row);
          held.set(row.url, (held.get(row.url) ?? 0) + 1);
        }
        if (got.length === 0 || got[0]!.scanned < want) break;
      }
      return claimed;
    },
    record: (records) =>
      records.length === 0
        ? Promise.resolve(0)
        : changes(q, RECORD, [
            records.map((r) => r.id), records.map((r) => r.leaseUntil), records.map((r) => r.status), records.map((r) => r.attemptCount),
            records.map((r) => r.attemptedAt), records.map((r) => r.responseStatus), records.map((r) => r.error),
            records.map((r) => r.nextAttemptAt),
          ]),
    release: async (list) => {
      if (list.length > 0) await q.unsafe(RELEASE, [list.map((r) => r.id), list.map((r) => r.leaseUntil)]);
    },
    // Nothing to write (the dispatcher holds its records back for a batch): the claim alone, whose
    // rounds are each one statement, without the BEGIN and COMMIT round trips around it.
    recordAndClaim: (records, releases, claim) =>
      records.length === 0 && releases.length === 0
        ? claim
          ? store.claim(claim)
          : Promise.resolve([])
        : atomically(q, async (tx) => {
            const on = tx === q ? store : createPgDispatchStore(tx);
            await on.record(records);
            await on.release(releases);
            return claim ? on.claim(claim) : [];
          }),
  };
  return store;
}
