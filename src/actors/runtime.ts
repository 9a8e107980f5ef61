// The lifecycle runtime: every transition is computed from the intent's row as read INSIDE the
// write (step.ts: XState's pure transition on the row's persisted snapshot), so no process ever
// acts on a state it holds in memory: a rolled-back batch or a second process cannot leave a
// stale actor in charge (contract 14, "the row is the only state"). One transition writes the
// intent row, its snapshot, the events and their deliveries in ONE transaction (Store.transact:
// the group committer's batch on SQLite, one connection's BEGIN..COMMIT on PostgreSQL). Deadlines and chain watches follow COMMITTED rows: after every commit, and on
// a periodic scan of the live rows, so a failed write can never unwatch or forget an intent.
import { newId } from '../domain/ids';
import { iso, type EventEnvelope } from '../domain/intent';
import type { Log } from '../log';
import { span, traceStart } from '../trace';
import type { IntentWriter } from '../store/intent-writer';
import { intentRowValues } from '../store/intent-writes';
import type { LiveHead, StoredIntent } from '../store/intents';
import type { Store, StoreRepos } from '../store/store';
import { hasTag, invalidState } from '../../machines/judge';
import { createDeadlines, type Deadlines } from './deadlines';
import { checkFence, isLeaseMoved } from './lease-fence';
import { createInspectMirror, type CommittedMove } from './inspect-mirror';
import { forget, step } from './step';
import type { NewIntent, NewIntentResult, Runtime, RuntimeDeps, Tx } from './runtime-types';
import { asReported, envelope, project } from './project-row';
import { createdEvent, createdMove, newRow, newRowCopy } from './fresh-row';
import { andThen, NO_SAVEPOINT } from './sync-then';
import { ShardedSet } from './sharded';
import { HandoverLedger } from './handovers';

export type { NewIntent, NewIntentResult, Runtime, RuntimeDeps, Tx } from './runtime-types';

const EXPIRY_HOLD_MS = 2_000;
/** Thrown inside create()'s write to roll it back when its idempotency key was stored meanwhile. */
class KeyStoredElsewhere extends Error {}
/** Live heads followed per turn of the event loop in a scan (~1-2 ms each: requests go on between). */
const SCAN_CHUNK = 2_000;
/**
 * Live heads read and followed per page of a scan, a turn of the event loop between pages: ~1 µs
 * each on SQLite all told (~0.4 ms of it the read), so ~0.5 ms per page on a quiet core.
 */
const SCAN_PAGE = 500;
/** Live ids visited per turn of the event loop when a lease is lost (at 100k in one step: ~10-30 ms). */
const DROP_CHUNK = 2_000;
/** Whole rows (live intents holding a transaction) read per turn of the event loop in a scan. */
const ROWS_CHUNK = 200;
const nextTurn = () => new Promise<void>((r) => setImmediate(r));
/** An expiry whose write failed is tried again this soon (the periodic scan would, later). */
const EXPIRY_RETRY_MS = 1_000;

export function createRuntime(deps: RuntimeDeps): Runtime {
  const now = deps.now ?? Date.now;
  const log: Log = deps.log ?? (() => {});
  const live = new ShardedSet(); // Sharded (also the scan's ids): growing one never rehashes 100k ids at once.
  const mirror = deps.inspect ? createInspectMirror(deps.inspect) : null;
  let scanTimer: ReturnType<typeof setInterval> | null = null;

  const workOf = () => deps.work?.() ?? null;
  const owns = (intentId: string) => {
    const w = workOf();
    return w === null || w.fenceForIntent(intentId) !== null;
  };
  // Commits handed over (and scans' follows) a scan under way has not seen.
  const ledger = new HandoverLedger();
  const unfollow = (intentId: string) => {
    live.delete(intentId);
    deadlines.disarm(intentId);
  };

  const deadlines: Deadlines = createDeadlines((intentId) => {
    const work = workOf();
    const fence = work ? work.fenceForIntent(intentId) : null;
    // Its shard moved since the deadline was armed: the new holder arms it from the row.
    if (work && fence === null) return void unfollow(intentId);
    return runtime
      .write(async (tx) => {
        if (work) await checkFence(tx.repos.leases, fence, work.owner, `the shard of ${intentId}`);
        const cur = await tx.get(intentId);
        // A transaction for it is being broadcast (or was, before a crash): never expire it now;
        // look again shortly, once the submit or reconciliation has moved it to pending.
        if (cur && (await deps.holdExpiry?.(intentId, tx.repos))) {
          deadlines.arm(intentId, tx.now + EXPIRY_HOLD_MS);
          return null;
        }
        return cur ? tx.apply(cur, { type: 'EXPIRE', at: tx.now }, 'ignore') : null;
      })
      .catch((e) => {
        if (isLeaseMoved(e)) {
          // Fenced out: another instance holds the shard now and expires it from the row.
          log('info', 'expiry dropped: its shard is held by another instance now', { intent_id: intentId, lease: e.lease });
          return unfollow(intentId);
        }
        // Not written: the row still says what it said, so its deadline is still due.
        log('error', 'expiry failed; retrying', { intent_id: intentId, error: String(e) });
        deadlines.arm(intentId, now() + EXPIRY_RETRY_MS);
      });
  }, now);

  /**
   * Follow one committed row of a shard this instance holds (the caller has asked: one shard hash
   * per row): its deadline and whether it is live. A row of another shard is unfollowed instead.
   */
  function followOwned(i: LiveHead): void {
    if (hasTag(i, 'terminal')) {
      live.delete(i.id);
      deadlines.disarm(i.id);
      forget(i.id);
      return;
    }
    live.add(i.id);
    if (hasTag(i, 'deadline') && !i.pendingAtExpiry) deadlines.arm(i.id, i.expiresAt);
    else deadlines.disarm(i.id);
  }

  // Creates sent to the writer thread and not answered yet: true once a write of the same intent
  // was handed over meanwhile (its row is visible from the writer's COMMIT on, before the answer).
  const creating = new Map<string, boolean>();

  /** Committed: now, and only now, memory follows these rows. A write that did not commit changed nothing here, so nothing needs undoing. */
  function handOver(touched: Iterable<StoredIntent>, moves: CommittedMove[], queued: boolean, at: number): void {
    const rows: StoredIntent[] = [];
    for (const i of touched) {
      if (creating.size > 0 && creating.has(i.id)) creating.set(i.id, true);
      ledger.mark(i.id);
      // Another instance follows the rest (their shard is its), from its own scan of the rows.
      if (owns(i.id)) {
        followOwned(i);
        rows.push(i);
      } else unfollow(i.id);
    }
    // (A partial hand-over is synchronous: only a full one returns a promise.)
    if (rows.length > 0) void deps.onCommitted?.(rows, false);
    mirror?.replay(moves);
    if (queued) deps.onDeliveriesQueued(at);
  }

  /**
   * A create without an idempotency key, on the event loop's write path: what write() + tx.insert
   * do (the same statements in the same order, the same hand-over), without the general Tx that
   * write() builds for every write (its six methods, a Map, an array: ~20 heap cells per create,
   * each create's garbage for the collector, whose pauses every request in flight waits for).
   * The write is synchronous on SQLite (no promise in the batch). Nothing can refuse it once its
   * INSERTs start (every check came before; its ids are new): no savepoint of its own, the cheaper
   * SQL (group-commit.ts). If its batch is rolled back and it runs again, it starts afresh.
   */
  function createNow(n: NewIntent): Promise<NewIntentResult> {
    let row: StoredIntent;
    let queued = false;
    let at = 0;
    return deps
      .transact((repos) => {
        at = now();
        row = newRow(n.fields(at));
        queued = false;
        return andThen(repos.intents.insert(row), () =>
          andThen(repos.outbox.append(createdEvent(row, at)), (q) => {
            queued = q;
          }),
        );
      }, NO_SAVEPOINT)
      .then(() => {
        handOver([row], mirror ? [createdMove(row)] : [], queued, at);
        return { intent: row };
      });
  }

  /**
   * The same create, its SQL on the writer thread: the row, event and response are built here
   * (what tx.insert builds), written there in the thread's next group-committed transaction, and
   * followed here once that COMMIT returned (on disk: the thread commits at synchronous=FULL).
   */
  async function createOnWriter(writer: Pick<IntentWriter, 'create'>, n: NewIntent): Promise<NewIntentResult> {
    const at = now();
    const fields = n.fields(at);
    const row = newRowCopy(fields);
    const k = n.idempotency;
    creating.set(row.id, false);
    let out: Awaited<ReturnType<typeof writer.create>>;
    let superseded: boolean;
    try {
      out = await writer.create({
        row: intentRowValues(row),
        event: { envelope: envelope('intent.created', row, at, n.wire), accountId: row.accountId, mode: row.mode, intentId: row.id, createdAt: at },
        idempotency: k && { accountId: k.accountId, mode: k.mode, key: k.key, response: k.response(row), now: at, ttlSeconds: k.ttlSeconds },
      });
    } finally {
      superseded = creating.get(row.id) === true;
      creating.delete(row.id);
    }
    if (out.kind === 'replay') return { replay: out.stored };
    if (out.kind === 'elsewhere') return { committedElsewhere: true };
    // A write of it committed after this one was handed over first: memory follows that (newer) row.
    if (superseded) handOver([], [], out.queued, at);
    else handOver([row], mirror ? [createdMove(row)] : [], out.queued, at);
    return { intent: row };
  }

  /** One scan of the live rows (Runtime.resync); `newer(id)`: handed over since it started. */
  async function scan(start: number, newer: (intentId: string) => boolean): Promise<number> {
    // Six columns per live intent, not whole rows (at 100k live: ~3x less to read, no JSON).
    // Only the shards this instance holds (work leases; all of them without).
    // The reads below yield (on PostgreSQL for real): a commit handed over meanwhile is newer than
    // what they return for its intent, and wins (a stale `pending` copy would otherwise re-watch
    // a closed intent and the next scan drop its watch, or unwatch one submitted meanwhile).
    const t0 = traceStart();
    // Read a page at a time, the event loop turning between pages (at 100k live intents one
    // read of all of them held every request for ~0.1 s). A page is read when its turn comes, so
    // the pages are not one snapshot; what that means for an intent that moves between two reads:
    // - its page's range never changes (the cursor is its receiver and creation time, which no
    //   write changes): it is read once, as it is when its page is read, never twice, and never
    //   skipped for having moved (a cursor with the state in it could pass over it);
    // - this process's commit of it (closing, creating, submitting) is handed over and newer
    //   than the scan's copy, read before or after it: the copy is ignored, as for a commit
    //   landing during a single read;
    // - another connection's commit after its page was read is seen by the next scan (on
    //   SQLite changedElsewhere was asked before this scan read anything, so the next look
    //   reports it): an intent closed there meanwhile stays followed until then (its deadline's
    //   write reads the row and finds nothing to do), one created there in a page already read
    //   is followed from then on. Exactly what a single read just before those commits gives.
    // Each page is followed as it is read (its heads are then garbage of the young generation:
    // nothing of 100k heads outlives the scan's many turns but their ids).
    const ids = new ShardedSet();
    const accounts = new Set<string>();
    const holding: LiveHead[] = [];
    let page = await deps.intents.liveHeadsPage(null, SCAN_PAGE);
    for (;;) {
      for (const h of page.heads) {
        if (!owns(h.id)) continue;
        ids.add(h.id);
        accounts.add(h.accountId);
        if (h.txSignature !== null) holding.push(h);
        if (newer(h.id)) continue;
        followOwned(h);
        // Another scan under way (a shard just leased beside the periodic one) must not unfollow
        // what this one follows now: for it, this is newer than what it read, as a commit is.
        if (ledger.scans > 1) ledger.markFollowed(h.id, start);
      }
      if (page.next === null) break;
      await nextTurn();
      page = await deps.intents.liveHeadsPage(page.next, SCAN_PAGE);
    }
    // Then what was followed but not read, in chunks, the event loop turning between them (a
    // commit handed over in between is newer than this scan and wins, as for one between pages).
    // Deleting the entry being visited from a Set is safe while iterating it: no copy of 100k ids.
    let n = 0;
    for (const id of live) {
      if (++n % SCAN_CHUNK === 0) await nextTurn();
      if (!ids.has(id) && !newer(id)) {
        live.delete(id);
        deadlines.disarm(id);
      }
    }
    // The chain watch follows transactions: it gets the whole row of each live intent holding
    // one. A live row without one would only end a watch, which a full sync does anyway for
    // every intent it is not handed.
    const watched: StoredIntent[] = [];
    let reads = 0;
    for (const h of holding) {
      if (++reads % ROWS_CHUNK === 0) await nextTurn();
      const row = await deps.intents.get(h.id);
      if (row) watched.push(row);
    }
    await deps.onCommitted?.(watched.filter((r) => !newer(r.id)), true, accounts, newer);
    span('resync', t0, ids.size);
    return ids.size;
  }

  const runtime: Runtime = {
    write<T>(fn: (tx: Tx) => T | Promise<T>, opts?: Parameters<Store['transact']>[1]): Promise<T> {
      // Made by each run of the write function below (the only run, but after a failure).
      let touched: Map<string, StoredIntent>;
      let moves: CommittedMove[];
      let queued = false;
      const append = (e: Parameters<StoreRepos['outbox']['append']>[0]) =>
        andThen(tx.repos.outbox.append(e), (q) => {
          if (q) queued = true;
        });
      const tx: Tx = {
        now: 0,
        repos: null as unknown as StoreRepos,
        get: async (id) => touched.get(id) ?? tx.repos.intents.getForUpdate(id),
        insert(fields) {
          const row = newRow(fields);
          touched.set(row.id, row);
          return andThen(tx.repos.intents.insert(row), () => {
            if (mirror) moves.push(createdMove(row));
            return andThen(append(createdEvent(row, tx.now)), () => row);
          });
        },
        async apply(intent, event, onReject, patch) {
          // The row as it is inside this write: whatever the caller (or this process) saw before.
          const cur = (await tx.get(intent.id)) ?? intent;
          const s = step(cur, event);
          if (s === null) {
            if (onReject === 'throw') throw invalidState(cur);
            return null;
          }
          const next = { ...project(cur, s, tx.now), ...patch };
          touched.set(next.id, next);
          await tx.repos.intents.update(next);
          if (mirror) moves.push({ id: next.id, chain: next.chain, before: cur.snapshot, event, after: next.snapshot, ended: hasTag(next, 'terminal') });
          for (const e of s.emitted) {
            await append({ envelope: envelope(e.type, asReported(e, next), tx.now), accountId: next.accountId, mode: next.mode, intentId: next.id, createdAt: tx.now });
          }
          return next;
        },
        async patch(cur, fields) {
          const next = { ...cur, ...fields, updatedAt: Math.max(tx.now, cur.updatedAt + 1) };
          touched.set(next.id, next);
          await tx.repos.intents.update(next);
          return next;
        },
        async event(e) {
          const envelope: EventEnvelope = { eventId: newId('evt'), type: e.type, createdAt: iso(tx.now), livemode: e.mode === 'live', data: e.data };
          await append({ envelope, accountId: e.accountId, mode: e.mode, intentId: e.intentId, createdAt: tx.now });
        },
      };
      return deps
        .transact((repos) => {
          tx.now = now();
          tx.repos = repos;
          // A write function may run again only after a failure; start each run clean.
          touched = new Map();
          moves = [];
          queued = false;
          return fn(tx);
        }, opts)
        .then((result) => {
          // (A write that resolved ran its function: both are set.)
          handOver(touched.values(), moves, queued, tx.now);
          return result;
        });
    },
    create(n) {
      const writer = deps.writer?.() ?? null;
      if (writer?.usable()) return createOnWriter(writer, n);
      const k = n.idempotency;
      // Without a key the write is the insert alone: synchronous on SQLite (no promise in the batch).
      // Nothing can refuse it once its INSERTs start (every check came before; its ids are new):
      // no savepoint of its own, the cheaper SQL (group-commit.ts). With a key, a key stored
      // meanwhile must roll back only this create.
      if (!k) return createNow(n);
      return runtime
        .write<NewIntentResult>(async (tx) => {
          // Another process (or a request that finished meanwhile) may have stored it first.
          const stored = await tx.repos.idempotency.get(k.accountId, k.mode, k.key, tx.now);
          if (stored) return { replay: stored };
          const intent = await tx.insert(n.fields(tx.now));
          // Throwing rolls this intent back (its savepoint / transaction).
          if (!(await tx.repos.idempotency.put(k.accountId, k.mode, k.key, k.response(intent), tx.now, k.ttlSeconds))) throw new KeyStoredElsewhere();
          return { intent };
        })
        .catch((e: unknown) => {
          if (e instanceof KeyStoredElsewhere) return { committedElsewhere: true as const };
          throw e;
        });
    },
    async resync() {
      const { start, newer } = ledger.begin();
      try {
        return await scan(start, newer);
      } finally {
        ledger.end(start);
      }
    },
    async rehydrateLive() {
      // The first look: what other connections write from now on makes the periodic scan read.
      deps.changedElsewhere?.();
      const n = await runtime.resync();
      if (!scanTimer) {
        scanTimer = setInterval(() => {
          // Only this process wrote since the last look: memory already follows every row (and
          // no scan needs what was handed over meanwhile).
          if (deps.changedElsewhere?.() === false) return ledger.forget();
          runtime.resync().catch((e) => log('error', 'live intent scan failed', { error: String(e) }));
        }, deps.resyncMs ?? 5_000);
        scanTimer.unref?.();
      }
      return n;
    },
    liveIntents: () => live.size,
    async dropWhere(gone) {
      let n = 0;
      for (const id of live) {
        if (++n % DROP_CHUNK === 0) await nextTurn();
        if (gone(id)) unfollow(id);
      }
    },
    stop() {
      if (scanTimer) clearInterval(scanTimer);
      scanTimer = null;
      deadlines.stop();
      mirror?.stop();
    },
  };
  return runtime;
}
