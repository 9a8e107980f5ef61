// Bridges committed intent rows and the chains. What is watched comes from the rows alone: after
// every commit the runtime hands over the rows it wrote, and its periodic scan every live row;
// the stage is the one the machine's `watchChain` invocation asks for in the row's snapshot. A
// watcher report is written through the runtime, which re-reads the row; a report whose write
// fails is kept and written again (it no longer depends on the watcher saying it twice).
import type { ChainRegistry } from '../chains/registry';
import type { ChainObservation, Watcher } from '../chains/types';
import type { IntentEvent } from '../../machines/intent.machine';
import type { StoredIntent } from '../store/intents';
import type { SubmissionOutcome } from '../store/submissions';
import type { Runtime } from './runtime';
import { hasTag } from '../../machines/judge';
import { checkFence, isLeaseMoved } from './lease-fence';
import { watchStageOf } from './step';
import type { WorkLeases } from './work-leases';
import { ShardedSet } from './sharded';

export interface ChainWatch {
  /** Follow what these committed rows say. Closed rows (boot) are welcome. */
  sync(rows: StoredIntent[]): void;
  /**
   * The same for every live row that holds a transaction (a full scan's): drop the rest, but keep
   * closed intents' transactions until their look-back ends. A chunk per turn of the event loop.
   * `newer(id)`: a commit handed this intent over after the scan read it: keep what that commit
   * said (asked when the pass reaches it). What is followed after the pass started is kept.
   */
  syncAll(rows: StoredIntent[], newer?: (intentId: string) => boolean): Promise<void>;
  /** Write a watcher report through the runtime (ignored when it no longer applies). */
  report(o: ChainObservation): Promise<void>;
  watchedCount(): number;
  /**
   * Stop following these intents (their shard's lease is gone); their unwritten reports are
   * dropped at once, their watches a chunk per turn of the event loop (`gone` is asked when the
   * pass reaches one: a report meanwhile is refused by its shard's fence).
   */
  dropWhere(gone: (intentId: string) => boolean): Promise<void>;
  /** Intents with a report whose write failed, kept and being written again. */
  unwrittenCount(): number;
  stop(): Promise<void>;
}

export interface ChainWatchOptions {
  log: (msg: string, fields: Record<string, unknown>) => void;
  /** How soon a report whose write failed is written again (default 1 s). */
  retryMs?: number;
  /** Test-only: runs inside the write of each report (throwing, or failing its COMMIT). */
  onReportWrite?: (o: ChainObservation) => void;
  /** How long a closed intent's recorded transaction stays followed (detection.lookbackSeconds). */
  lookbackMs?: number;
  /**
   * A recorded transaction landed that the row no longer watches (contract 14, "never out of
   * sight"): the intent closed, or it follows another transaction now. `landed`: the report's
   * transaction and the one it was followed as (see ChainObservation). It drives the intent when
   * still payable (or in flight), else becomes a late or duplicate payment.
   */
  onLandedAfterClose?: (row: StoredIntent, landed: { txSignature: string; follows: string }, commitment: 'confirmed' | 'finalized') => Promise<void>;
  now?: () => number;
  /**
   * Live work by lease (issue 12): a report's write is fenced with its intent's shard lease, and
   * one fenced out (the shard moved) is dropped with the rest of that intent's queue. Null before
   * the instance joined (boot): every report is written.
   */
  work?: () => Pick<WorkLeases, 'owner' | 'fenceForIntent'> | null;
}

export function toEvent(o: ChainObservation, at: number): IntentEvent {
  switch (o.type) {
    case 'confirmed': return { type: 'CHAIN_CONFIRMED', at, txSignature: o.txSignature };
    case 'finalized': return { type: 'CHAIN_FINALIZED', at, txSignature: o.txSignature };
    case 'failed': return { type: 'CHAIN_FAILED', at, reason: o.reason };
    case 'dropped': return { type: 'CHAIN_DROPPED', at };
    case 'reorged': return { type: 'CHAIN_REORGED', at };
  }
}

/** What a chain verdict says became of the transaction (contract 11's write-ahead record). */
const OUTCOME: Record<ChainObservation['type'], SubmissionOutcome | null> = {
  confirmed: 'landed', finalized: 'landed', failed: 'failed', dropped: 'dropped', reorged: null,
};

interface Followed {
  chain: string;
  txSignature: string;
  /** 'closed': the intent left the watched states (dropped, failed, expired, cancelled). */
  stage: 'pending' | 'confirmed' | 'closed';
  /** closed: followed until then (the row's updatedAt + the look-back). */
  until?: number;
  /** When it was followed (`stamp`): a full sync that started before keeps it. */
  since: number;
}

/** Followed intents (or rows) gone over per turn of the event loop in a full sync or a drop (~0.5-3 µs each). */
const CHUNK = 2_000;
const nextTurn = () => new Promise<void>((r) => setImmediate(r));

/**
 * A recorded transaction of an intent that closed unpaid: the machine no longer watches it, but
 * it could still land (a reorg, a verdict the chain later undid) within the look-back.
 */
const closedWithTransaction = (row: StoredIntent) => row.txSignature !== null && !hasTag(row, 'paid') && watchStageOf(row) === null;

export function createChainWatch(chains: ChainRegistry, getRuntime: () => Runtime, opts: ChainWatchOptions): ChainWatch {
  const watchers = new Map<string, Watcher>();
  const followed = new Map<string, Followed>();
  /** Reports not written yet, per intent, oldest first (the head is being written). */
  const queues = new Map<string, ChainObservation[]>();
  /** Intents whose oldest report failed to be written at least once. */
  const failing = new Set<string>();
  let stopped = false;
  const now = opts.now ?? Date.now;
  /** Counts follows: a full sync keeps what was followed after it started. */
  let stamp = 0;

  const watcherFor = (chain: string): Watcher | null => {
    let w = watchers.get(chain);
    if (!w) {
      const network = chains.network(chain);
      if (!network) return null;
      w = chains.adapter(network.family).createWatcher(network, chains.pool(chain), (o) => void cw.report(o));
      watchers.set(chain, w);
    }
    return w;
  };

  const unfollow = (id: string) => {
    const f = followed.get(id);
    followed.delete(id);
    if (f) watchers.get(f.chain)?.unwatch(id);
  };

  const watch = (row: StoredIntent & { txSignature: string }, f: Omit<Followed, 'since'>, signedTransaction: string | null) => {
    const w = watcherFor(row.chain);
    if (!w) return;
    followed.set(row.id, { ...f, since: ++stamp });
    w.watch({
      intentId: row.id,
      chain: row.chain,
      txSignature: row.txSignature,
      signedTransaction,
      watchData: row.watchData ?? {},
      stage: f.stage === 'closed' ? 'pending' : f.stage,
      intent: {
        id: row.id, chain: row.chain, token: row.token, tokenAddress: row.tokenAddress, decimals: row.decimals,
        amountBaseUnits: row.amountBaseUnits, requestor: row.requestor, fulfiller: row.fulfiller,
      },
    });
  };

  const follow = (row: StoredIntent) => {
    // No transaction, nothing to watch (both cases below need one): a new intent's snapshot is
    // not parsed after every create.
    if (row.txSignature === null) return unfollow(row.id);
    const stage = watchStageOf(row);
    const cur = followed.get(row.id);
    if (stage !== null && row.txSignature !== null) {
      // A transaction known only by id (null bytes) is followed without rebroadcast.
      if (cur && cur.txSignature === row.txSignature && cur.stage === stage) return;
      return watch({ ...row, txSignature: row.txSignature }, { chain: row.chain, txSignature: row.txSignature, stage }, row.signedTransaction);
    }
    const until = row.updatedAt + (opts.lookbackMs ?? 0);
    if (closedWithTransaction(row) && until > now()) {
      if (cur && cur.txSignature === row.txSignature && cur.stage === 'closed') return;
      // Followed, never rebroadcast: only whether it lands matters now.
      return watch({ ...row, txSignature: row.txSignature! }, { chain: row.chain, txSignature: row.txSignature!, stage: 'closed', until }, null);
    }
    // Simulated transitions (no transaction), paid and finalized intents: nothing to follow.
    unfollow(row.id);
  };

  const write = async (o: ChainObservation): Promise<void> => {
    const work = opts.work?.() ?? null;
    const fence = work ? work.fenceForIntent(o.intentId) : null;
    const landing = o.type === 'confirmed' || o.type === 'finalized';
    const landed = await getRuntime().write(async (tx): Promise<{ row: StoredIntent; stale: boolean } | null> => {
      if (work) await checkFence(tx.repos.leases, fence, work.owner, `the shard of ${o.intentId}`);
      opts.onReportWrite?.(o);
      const cur = await tx.get(o.intentId);
      if (!cur) return null;
      if (cur.txSignature !== o.follows && cur.txSignature !== o.txSignature) {
        // The row moved to another transaction since this verdict was decided (a detected transfer
        // drove it while the report waited: a failed write, an await in the watcher). It is no
        // verdict on the transaction the intent follows now; what it says of its own transaction
        // is still recorded: its write-ahead record's outcome, and a landing as a payment.
        if (landing) return { row: cur, stale: true };
        if (OUTCOME[o.type] !== null) await tx.repos.submissions.setOutcome(cur.chain, o.txSignature, OUTCOME[o.type], tx.now);
        return null;
      }
      if (closedWithTransaction(cur)) return landing ? { row: cur, stale: false } : null;
      const kept = o.type === 'confirmed' && o.watchData ? { watchData: { ...(cur.watchData ?? {}), ...o.watchData } } : undefined;
      const next = await tx.apply(cur, toEvent(o, tx.now), 'ignore', kept);
      // Contract 11's write-ahead record resolves in the same write as the verdict it follows from.
      if (next) await tx.repos.submissions.setOutcome(cur.chain, o.txSignature, OUTCOME[o.type], tx.now);
      return null;
    });
    if (!landed || !landing) return;
    if (landed.stale) opts.log('chain report about a transaction the intent no longer follows: recorded as a payment', {
      intent_id: o.intentId, tx_signature: o.txSignature, follows: landed.row.txSignature, type: o.type,
    });
    // Its own write (the matcher's: it drives the intent when it is still payable, else a late or
    // duplicate payment); if it fails, this report is kept and tried again like any other.
    await opts.onLandedAfterClose?.(landed.row, { txSignature: o.txSignature, follows: o.follows }, o.type);
    // Final and recorded: nothing more can happen to it (a payable intent it drove is followed anew).
    if (!landed.stale && o.type === 'finalized' && followed.get(o.intentId)?.stage === 'closed') unfollow(o.intentId);
  };

  const pause = () =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, opts.retryMs ?? 1_000);
      t.unref?.();
    });

  /** Write one intent's reports in the order they came, each until it is written. */
  async function drain(id: string, queue: ChainObservation[]): Promise<void> {
    while (queue.length > 0 && !stopped) {
      try {
        await write(queue[0]!);
        queue.shift();
        failing.delete(id);
      } catch (e) {
        if (isLeaseMoved(e)) {
          // Another instance holds the intent's shard now; it follows the chain from the row.
          opts.log('chain report dropped: its shard is held by another instance now', { intent_id: id, lease: e.lease });
          queue.length = 0;
          unfollow(id);
          break;
        }
        // Not written: the row still says what it said. Keep the report (and everything newer
        // behind it, in order) and write it again; a failed write never loses an observation.
        if (!failing.has(id)) opts.log('chain report not written; retrying', { intent_id: id, type: queue[0]!.type, error: String(e) });
        failing.add(id);
        await pause();
      }
    }
    queues.delete(id);
    failing.delete(id);
  }

  const cw: ChainWatch = {
    sync(rows) {
      if (stopped) return;
      for (const row of rows) follow(row);
    },
    async syncAll(rows, newer) {
      const start = stamp;
      const ids = new ShardedSet();
      const work = opts.work?.() ?? null;
      let n = 0;
      for (const row of rows) {
        if (++n % CHUNK === 0) await nextTurn();
        if (stopped) return;
        ids.add(row.id);
        // Its shard's lease was lost since the scan read it (a drop is under way or done): not followed again.
        if (newer?.(row.id) || (work !== null && work.fenceForIntent(row.id) === null)) continue;
        // Followed anew since this pass started (a commit handed over between two chunks, the
        // look-back's follows): that is newer than the scan's copy. Re-following the copy's older
        // transaction would unwatch the one the row follows now (its reports lost until the next
        // scan); newer() says so only for the commits the runtime knows of.
        if ((followed.get(row.id)?.since ?? 0) > start) continue;
        follow(row);
      }
      const t = now();
      for (const [id, f] of followed) {
        if (++n % CHUNK === 0) await nextTurn();
        if (stopped) return;
        // Followed since this pass started (another scan's, a shard just leased): newer than its rows.
        if (f.since > start || newer?.(id)) continue;
        // Live rows are all here; a closed intent's transaction is followed until its look-back ends.
        if (f.stage === 'closed' ? f.until! <= t : !ids.has(id)) unfollow(id);
      }
    },
    report(o) {
      const work = opts.work?.() ?? null;
      if (stopped || (work && work.fenceForIntent(o.intentId) === null)) return Promise.resolve();
      // For a closed intent only a landing is news (its watcher repeats the old verdict).
      if (followed.get(o.intentId)?.stage === 'closed' && o.type !== 'confirmed' && o.type !== 'finalized') return Promise.resolve();
      const queue = queues.get(o.intentId);
      if (queue) {
        // Behind an earlier report of the same intent: written after it (a repeat adds nothing).
        const last = queue[queue.length - 1];
        if (!last || last.type !== o.type || last.txSignature !== o.txSignature) queue.push(o);
        return Promise.resolve();
      }
      const fresh = [o];
      queues.set(o.intentId, fresh);
      return drain(o.intentId, fresh);
    },
    watchedCount: () => followed.size,
    async dropWhere(gone) {
      for (const [id, queue] of queues) if (gone(id)) queue.length = 0;
      let n = 0;
      // (Deleting the entry being visited from a Map is safe while iterating it: no copy of every id.)
      for (const id of followed.keys()) {
        if (++n % CHUNK === 0) await nextTurn();
        if (gone(id)) unfollow(id);
      }
    },
    unwrittenCount: () => failing.size,
    async stop() {
      stopped = true;
      await Promise.all([...watchers.values()].map((w) => w.stop()));
      watchers.clear();
    },
  };
  return cw;
}
