// Bridges committed intent rows and the chains. What is watched comes from the rows alone: after
// every commit the runtime hands over the rows it wrote, and its periodic scan every live row;
// the stage is the one the machine's `watchChain` invocation asks for in the row's snapshot. A
// watcher report is written through the runtime, which re-reads the row; a report whose write
// fails is kept and written again (it no longer depends on the watcher saying it twice).
import type { ChainRegistry } from '../chains/registry';
import type { ChainObservation, Watcher } from '../chains/types';
import type { IntentEvent } from '../../machines/intent.machine';
import type { StoredIntent } from '../store/intents';
import type { SubmissionOutcome, SubmissionRepo } from '../store/submissions';
import type { Runtime } from './runtime';
import { watchStageOf } from './step';

export interface ChainWatch {
  /** Follow what these committed rows say; `full`: they are every live row (drop the rest). */
  sync(rows: StoredIntent[], full: boolean): void;
  /** Write a watcher report through the runtime (ignored when it no longer applies). */
  report(o: ChainObservation): Promise<void>;
  watchedCount(): number;
  /** Intents with a report whose write failed, kept and being written again. */
  unwrittenCount(): number;
  stop(): Promise<void>;
}

export interface ChainWatchOptions {
  log: (msg: string, fields: Record<string, unknown>) => void;
  /** Contract 11's write-ahead records: each resolves with the verdict, in the same write. */
  submissions: Pick<SubmissionRepo, 'setOutcome'>;
  /** How soon a report whose write failed is written again (default 1 s). */
  retryMs?: number;
  /** Test-only: runs inside the write of each report (throwing, or failing its COMMIT). */
  onReportWrite?: (o: ChainObservation) => void;
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
  stage: 'pending' | 'confirmed';
}

export function createChainWatch(chains: ChainRegistry, getRuntime: () => Runtime, opts: ChainWatchOptions): ChainWatch {
  const watchers = new Map<string, Watcher>();
  const followed = new Map<string, Followed>();
  /** Reports not written yet, per intent, oldest first (the head is being written). */
  const queues = new Map<string, ChainObservation[]>();
  /** Intents whose oldest report failed to be written at least once. */
  const failing = new Set<string>();
  let stopped = false;

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

  const follow = (row: StoredIntent) => {
    const stage = watchStageOf(row);
    // Simulated transitions have no transaction to follow; a transaction known only by id (null
    // bytes) is followed without rebroadcast.
    if (stage === null || row.txSignature === null) return unfollow(row.id);
    const f = followed.get(row.id);
    if (f && f.txSignature === row.txSignature && f.stage === stage) return;
    const w = watcherFor(row.chain);
    if (!w) return;
    followed.set(row.id, { chain: row.chain, txSignature: row.txSignature, stage });
    w.watch({
      intentId: row.id,
      chain: row.chain,
      txSignature: row.txSignature,
      signedTransaction: row.signedTransaction,
      watchData: row.watchData ?? {},
      stage,
      intent: {
        id: row.id, chain: row.chain, token: row.token, tokenAddress: row.tokenAddress, decimals: row.decimals,
        amountBaseUnits: row.amountBaseUnits, requestor: row.requestor, fulfiller: row.fulfiller,
      },
    });
  };

  const write = (o: ChainObservation) =>
    getRuntime().write((tx) => {
      opts.onReportWrite?.(o);
      const cur = tx.get(o.intentId);
      if (!cur) return null;
      const next = tx.apply(cur, toEvent(o, tx.now), 'ignore');
      // The submission row resolves in the same write as the verdict it follows from.
      if (next) opts.submissions.setOutcome(cur.chain, o.txSignature, OUTCOME[o.type], tx.now);
      return next;
    });

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
    sync(rows, full) {
      if (stopped) return;
      for (const row of rows) follow(row);
      if (!full) return;
      const ids = new Set(rows.map((r) => r.id));
      for (const id of [...followed.keys()]) if (!ids.has(id)) unfollow(id);
    },
    report(o) {
      if (stopped) return Promise.resolve();
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
    unwrittenCount: () => failing.size,
    async stop() {
      stopped = true;
      await Promise.all([...watchers.values()].map((w) => w.stop()));
      watchers.clear();
    },
  };
  return cw;
}
