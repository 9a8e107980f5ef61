// Claiming due deliveries with a lease, on SQLite (no SKIP LOCKED; a dead process's lease just
// runs out and the row is claimed again), inside the dispatch store's one transaction. Fair: at
// most `perEndpoint` rows per URL counting those already in flight, and URLs at their limit are
// skipped in the scan, so a backlog to one slow or dead receiver cannot fill the batch and starve
// other accounts.

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
  /**
   * With `deep`: look only at rows due since this time (rows queued since the last look; a wake
   * after a commit). The backlog behind a saturated URL is then not read again on every wake;
   * the poll's full deep look still finds anything older within one interval.
   */
  since?: number;
}

/** The two statements a claim is made of (src/store/webhook-dispatch.ts); R is the claimed row. */
export interface ClaimStatements<R> {
  dueCandidates(now: number, skipUrls: readonly string[], limit: number, since: number): Array<{ seq: number; url: string }>;
  lease(seqs: readonly number[], leaseUntil: number, now: number): R[];
}

/**
 * Due rows a shallow look reads (besides the ones held). A send that finishes frees one slot and a
 * tick claims ~8: 32 rows still reach other URLs' oldest rows past a full one, at half the read of
 * 64 (the window was ~40 % of a claim's cost); deep looks (wake, poll) reach the whole backlog.
 */
export const SHALLOW_WINDOW = 32;

export function claimFairly<R>(store: ClaimStatements<R>, a: ClaimArgs): R[] {
  const taken = new Map(a.inFlight);
  const seqs: number[] = [];
  const full = () => [...taken].filter(([, n]) => n >= a.perEndpoint).map(([u]) => u);
  // Each round skips the URLs filled so far; a round that returns fewer rows than asked has
  // seen every due row of the remaining URLs.
  for (let round = 0; round < (a.deep ? 8 : 1) && seqs.length < a.limit; round++) {
    // A shallow look (after sends finish, many times a second) reads a bounded window of the
    // oldest rows: reading 4x the free slots (hundreds of rows) to fill one URL's few slots
    // was most of the dispatcher's time with one busy receiver. SHALLOW_WINDOW rows, past the
    // ones this dispatcher holds (read too on SQLite: in flight, claimed ahead, records waiting).
    const want = a.deep ? Math.max(64, (a.limit - seqs.length) * 4) : SHALLOW_WINDOW;
    // Only a deep look skips the full URLs inside the index read: that filter walks every due row
    // of theirs to reach the next one (the whole backlog when one URL is full). A shallow look
    // stays a window of the oldest rows and passes over a full URL's rows in it here.
    const rows = store.dueCandidates(a.now, a.deep ? full() : [], want, a.deep ? (a.since ?? 0) : 0);
    for (const r of rows) {
      if (seqs.length >= a.limit) break;
      const n = taken.get(r.url) ?? 0;
      if (n >= a.perEndpoint) continue;
      taken.set(r.url, n + 1);
      seqs.push(r.seq);
    }
    if (rows.length < want) break;
  }
  return store.lease(seqs, a.leaseUntil, a.now);
}
