// The webhook dispatcher: claim due outbox rows (lease) → sign at send time → POST → record the
// attempt (delivered / backoff / failed). Bounded concurrency overall and per endpoint URL, so a
// slow or dead receiver only ever occupies its own slots. Crash-safe: state lives in the rows.
import type { Config } from '../config.types';
import type { AttemptRecord, ClaimArgs, ClaimedDelivery, DispatchStore, LeaseRef } from '../store/webhook-dispatch';
import { activeSecrets } from './endpoints';
import { decideAttempt } from './record-attempt';
import { createHttp1Client, type Http1Client } from './post-http1';
import { sendDelivery, type FetchFn, type SendOutcome } from './send';
import { signHeaders } from './sign';
import { systemLookup, type Lookup } from './url-policy';

export type DispatcherLog = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

export interface DispatcherDeps {
  /** The store's dispatch operations (src/store/webhook-dispatch.ts). */
  dispatch: DispatchStore;
  /**
   * null, or a promise that settles once every commit so far is on disk (Store.durable).
   * `maxSeq`: the highest seq of the claimed rows, for a store that can tell they are on disk
   * already (the dispatcher thread's connection, dispatch-connection.ts).
   */
  durable: (maxSeq?: number) => Promise<void> | null;
  config: Config;
  log?: DispatcherLog;
  /** Injected for tests (e.g. to trust a test CA); defaults to Bun's fetch. */
  fetch?: FetchFn;
  /**
   * How http:// endpoints are POSTed (closed at stop); defaults to a client of its own
   * (post-http1.ts). https:// ones always use `fetch`.
   */
  http1?: Http1Client;
  lookup?: Lookup;
  now?: () => number;
  random?: () => number;
}

type Scan = 0 | 1 | 2;

/**
 * Attempts are recorded in batches, not at every tick: once this many wait, or RECORD_WAIT_MS after
 * the oldest of them (and at stop). A record is not on a delivery's path (its time is the attempt's),
 * and each write is a transaction (on SQLite the write lock the server's batches queue behind, and
 * a COMMIT whose WAL pages cost about as much as a few rows): one per 32 sends instead of one per
 * few. A crash loses at most these (their rows are sent again: at least once, as before). Rows
 * whose record waits stay held, so they are not claimed again meanwhile. 128 (50 ms) was measured
 * and not kept: a little less CPU per delivery, but under create load the dispatcher then sends
 * more of them during the run and the creates slowed (bench/RESULTS.md, dcpu2).
 */
const RECORD_BATCH = 32;
const RECORD_WAIT_MS = 20;

/**
 * Rows claimed ahead per URL, in perEndpoints' worth beyond the ones in flight. Two, not one: the
 * next claim then takes ~12 rows instead of ~8 (a third fewer claims per delivery), and under
 * create load a finished send finds its next row ready more often instead of waiting for a claim
 * (bench/create: 60-68 % -> 72-77 % of the deliveries sent within the run; bench/RESULTS.md, dprio).
 */
const AHEAD = 2;

export interface DispatcherStats {
  inFlight: number;
  attempts: number;
  delivered: number;
  failed: number;
}

export interface Dispatcher {
  /** Settles once it can dispatch (a dispatcher on its own thread: the thread is up). */
  ready?(): Promise<void>;
  start(): void;
  /**
   * New rows are due (after a transition's commit, a replay): claim now instead of at the next
   * poll. `dueFrom`: the earliest next_attempt_at among the rows the commit wrote (its write's
   * time, taken before its COMMIT); without it the wake looks at every due row.
   */
  wake(dueFrom?: number): void;
  /** Abort in-flight sends (their rows are released, not charged an attempt) and stop polling. */
  stop(): Promise<void>;
  stats(): DispatcherStats;
}

export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const { dispatch: store, config } = deps;
  const w = config.webhooks;
  const log = deps.log ?? (() => {});
  const now = deps.now ?? Date.now;
  const doFetch: FetchFn = deps.fetch ?? ((i, init) => fetch(i, init as RequestInit));
  // Sends to http:// endpoints on this thread's own sockets (no wake of Bun's HTTP client thread per send).
  const client = deps.http1 ?? createHttp1Client();
  const lookup = deps.lookup ?? systemLookup;
  // A lease must outlive one whole attempt (DNS + connect + timeout), or a live send's row
  // could be claimed twice.
  const leaseMs = Math.max(w.leaseMs, w.timeoutMs * 2);

  const perUrl = new Map<string, number>();
  let inFlight = 0;
  // Claimed ahead (leased, not yet sent): up to one more concurrency's worth overall and AHEAD
  // more perEndpoints' worth per URL, so a finished send starts the next row at once and one claim
  // transaction serves several sends instead of one. Rows behind a durability gate wait in it too.
  let ready: ClaimedDelivery[] = [];
  const readyPerUrl = new Map<string, number>();
  const gated = new Set<ClaimedDelivery>();
  const running = new Set<Promise<void>>();
  let toRecord: AttemptRecord[] = [];
  let toRelease: LeaseRef[] = [];
  // The next commit writes the records (their batch is full, their time is up, or a write failed).
  let recordNow = false;
  let recordTimer: ReturnType<typeof setTimeout> | undefined;
  const stats = { attempts: 0, delivered: 0, failed: 0 };
  const abort = new AbortController();
  let started = false;
  let stopped = false;
  let tickScheduled = false;
  // One tick at a time (its store operation may be a round trip): a kick meanwhile runs another after it.
  let ticking: Promise<void> | null = null;
  let again = false;
  // What the next tick looks at: 0 the oldest due rows (a slot was freed), 1 also past saturated
  // URLs among rows queued since the last look (a wake after a commit), 2 past saturated URLs
  // over the whole backlog (the poll: retries that came due, rows from other processes).
  let pending: Scan = 0;
  // When the last look past saturated URLs began. Not a bound for the rows it missed: a row's due
  // time is its write's time, taken before its COMMIT, which can land after a look began later
  // (seen under load: a create's time taken, a claim, then the create's COMMIT: its wake looked
  // only past the claim's time and the row waited for the poll). So a wake also brings the earliest
  // due time of what it committed (wokenFrom, the lowest since the last look), and the look reaches back to it.
  let lookedAt = 0;
  let wokenFrom = Infinity;
  let poll: ReturnType<typeof setInterval> | undefined;

  /** Schedule a tick that looks at least as far as `scan`. */
  function kick(scan: Scan): void {
    if (scan > pending) pending = scan;
    if (!started || stopped) return;
    if (ticking !== null) {
      again = true;
      return;
    }
    if (tickScheduled) return;
    tickScheduled = true;
    setImmediate(() => {
      ticking = tick().finally(() => {
        ticking = null;
        if (again) {
          again = false;
          kick(0);
        }
      });
    });
  }

  /** What the next claim asks for: the free slots, counting rows claimed ahead against their URL. */
  function claimArgs(scan: Scan): ClaimArgs {
    const t = now();
    const since = scan === 1 ? Math.min(lookedAt, wokenFrom) : 0;
    if (scan > 0) {
      lookedAt = t;
      wokenFrom = Infinity;
    }
    const held = new Map(perUrl);
    for (const [u, n] of readyPerUrl) held.set(u, (held.get(u) ?? 0) + n);
    return {
      now: t, leaseUntil: t + leaseMs, limit: 2 * w.concurrency - inFlight - ready.length,
      perEndpoint: (1 + AHEAD) * w.perEndpointConcurrency, inFlight: held, deep: scan > 0, since,
    };
  }

  /** An attempt's outcome, written with the next batch of records. */
  function queueRecord(rec: AttemptRecord): void {
    toRecord.push(rec);
    if (toRecord.length >= RECORD_BATCH) recordNow = true;
    else if (recordTimer === undefined && !stopped) {
      recordTimer = setTimeout(() => {
        recordTimer = undefined;
        recordNow = true;
        kick(0);
      }, RECORD_WAIT_MS);
      recordTimer.unref?.();
    }
  }

  /**
   * Write the records when their batch is due (and always when not claiming: at stop) and claim
   * more when `claimSlots`, in one store call (the store says how many transactions: on
   * PostgreSQL one, on SQLite the claim is a read). Without an fsync (the store says why that is
   * safe). On failure keep them for the next try.
   */
  async function commit(claimSlots: boolean, scan: Scan = 0): Promise<ClaimedDelivery[]> {
    const write = recordNow || !claimSlots || toRecord.length >= RECORD_BATCH;
    const records = write ? toRecord : [];
    const releases = toRelease;
    if (write) {
      toRecord = [];
      recordNow = false;
      clearTimeout(recordTimer);
      recordTimer = undefined;
    }
    toRelease = [];
    try {
      return await store.recordAndClaim(records, releases, claimSlots ? claimArgs(scan) : null);
    } catch (e) {
      // Busy or I/O trouble: nothing was written; the lease fence keeps a late retry safe.
      if (write) {
        toRecord = records.concat(toRecord);
        recordNow = toRecord.length > 0;
      }
      toRelease = releases.concat(toRelease);
      throw e;
    }
  }

  async function tick(): Promise<void> {
    tickScheduled = false;
    if (stopped) return;
    const scan = pending;
    pending = 0;
    let rows: ClaimedDelivery[];
    try {
      rows = await commit(true, scan);
    } catch (e) {
      log('error', 'webhook dispatcher tick failed; retrying at the next poll', { error: String(e) });
      return;
    }
    // A claimed row may come from a batch whose WAL sync is still under way: an event never
    // reaches a receiver before the transition that made it is on disk (deps.durable()).
    const gate = rows.length > 0 ? deps.durable(highestSeq(rows)) : null;
    for (const row of rows) {
      ready.push(row);
      count(readyPerUrl, row.url, 1);
      if (gate !== null) gated.add(row);
    }
    gate?.then(
      () => {
        for (const row of rows) gated.delete(row);
        pump();
      },
      (e) => {
        // Not known to be on disk: give the rows back unsent (they are sent once they are).
        log('error', 'commits not durable; claimed deliveries given back', { error: String(e) });
        for (const row of rows) gated.delete(row);
        drop(new Set(rows));
      },
    );
    pump();
  }

  function highestSeq(rows: readonly ClaimedDelivery[]): number {
    let m = 0;
    for (const r of rows) if (r.seq > m) m = r.seq;
    return m;
  }

  function count(m: Map<string, number>, url: string, d: number): void {
    const n = (m.get(url) ?? 0) + d;
    if (n === 0) m.delete(url);
    else m.set(url, n);
  }

  /** Give rows claimed ahead back (their lease is released; another claim takes them again). */
  function drop(rows: ReadonlySet<ClaimedDelivery>): void {
    ready = ready.filter((r) => !rows.has(r));
    for (const r of rows) {
      count(readyPerUrl, r.url, -1);
      toRelease.push({ seq: r.seq, id: r.id, leaseUntil: r.leaseUntil });
    }
  }

  /** Start every ready row that has a free slot, oldest claimed first. */
  function pump(): void {
    if (stopped) return;
    const kept: ClaimedDelivery[] = [];
    const stale = new Set<ClaimedDelivery>();
    const t = now();
    for (const row of ready) {
      if (gated.has(row) || inFlight >= w.concurrency || (perUrl.get(row.url) ?? 0) >= w.perEndpointConcurrency) kept.push(row);
      // Too little lease left for a whole attempt: another claim must not be able to take it mid-send.
      else if (row.leaseUntil - t < w.timeoutMs) stale.add(row);
      else {
        count(readyPerUrl, row.url, -1);
        launch(row);
      }
    }
    ready = kept;
    if (stale.size > 0) {
      for (const r of stale) ready.push(r);
      drop(stale);
      kick(0);
    }
  }

  function launch(row: ClaimedDelivery): void {
    inFlight++;
    count(perUrl, row.url, 1);
    const p = attempt(row)
      .catch((e) => log('error', 'webhook attempt crashed', { deliveryId: row.id, error: String(e) }))
      .finally(() => {
        inFlight--;
        count(perUrl, row.url, -1);
        running.delete(p);
        pump();
        // Claim again (and write the records) once this URL's rows claimed ahead run low; a
        // batch of sends then shares one transaction.
        if ((readyPerUrl.get(row.url) ?? 0) <= w.perEndpointConcurrency / 2 || recordNow) kick(0);
      });
    running.add(p);
  }

  async function attempt(row: ClaimedDelivery): Promise<void> {
    const sentAt = now();
    let outcome: SendOutcome;
    if (!row.payload) outcome = { ok: false, status: null, error: `event ${row.eventId} not found` };
    else if (!row.secret) outcome = { ok: false, status: null, error: 'no webhook endpoint (secret) for this account and mode' };
    else {
      const secrets = activeSecrets(
        { url: row.url, secret: row.secret, previousSecret: row.previousSecret, previousSecretExpiresAt: row.previousSecretExpiresAt },
        sentAt,
      );
      const headers = signHeaders({ eventId: row.eventId, body: row.payload, secrets, timestampSeconds: Math.floor(sentAt / 1000) });
      headers['Content-Type'] = 'application/json';
      outcome = await sendDelivery({
        url: row.url,
        body: row.payload,
        headers,
        timeoutMs: w.timeoutMs,
        policy: { mode: row.mode, allowPrivateUrls: w.allowPrivateUrls },
        lookup,
        fetch: doFetch,
        post: client.post,
        signal: abort.signal,
      });
    }
    if (outcome.aborted) {
      toRelease.push({ seq: row.seq, id: row.id, leaseUntil: row.leaseUntil });
      return;
    }
    const rec = decideAttempt(row, outcome, now(), w.retryScheduleSeconds, deps.random);
    stats.attempts++;
    if (rec.status === 'delivered') stats.delivered++;
    if (rec.status === 'failed') {
      stats.failed++;
      log('warn', 'webhook delivery failed for good', { deliveryId: row.id, eventId: row.eventId, attempts: rec.attemptCount, error: rec.error });
    } else if (!outcome.ok) {
      log('debug', 'webhook attempt failed', { deliveryId: row.id, attempt: rec.attemptCount, error: rec.error });
    }
    queueRecord(rec);
  }

  return {
    start() {
      if (started || stopped) return;
      started = true;
      poll = setInterval(() => kick(2), w.pollIntervalMs);
      poll.unref?.();
      kick(2);
    },
    wake(dueFrom = 0) {
      if (dueFrom < wokenFrom) wokenFrom = dueFrom;
      kick(1);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (poll) clearInterval(poll);
      clearTimeout(recordTimer);
      recordTimer = undefined;
      abort.abort();
      client.close();
      // A tick under way still adds what it claimed to `ready`, which is given back below.
      await ticking;
      await Promise.allSettled([...running]);
      // Rows claimed ahead and never sent go back unleased, like aborted sends.
      drop(new Set(ready));
      try {
        await commit(false);
      } catch (e) {
        log('error', 'webhook dispatcher could not record its last attempts (their leases will run out)', { error: String(e) });
      }
    },
    stats: () => ({ inFlight, ...stats }),
  };
}
