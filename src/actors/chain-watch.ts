// Bridges the lifecycle actors and the chains: the `watchChain` invoked actor asks to follow
// an intent; this registers it with the network's one shared watcher AFTER the transition has
// committed (the row then holds the signed bytes), and turns watcher reports into events.
import type { ChainRegistry } from '../chains/registry';
import type { ChainObservation, Watcher } from '../chains/types';
import type { IntentEvent } from '../../machines/intent.machine';
import type { IntentRepo } from '../store/intents';
import type { SubmissionOutcome, SubmissionRepo } from '../store/submissions';
import type { Runtime } from './runtime';

export interface ChainWatch {
  onWatch(intentId: string, stage: 'pending' | 'confirmed' | null): void;
  /** Route a watcher report into the intent's actor (ignored when it no longer applies). */
  report(o: ChainObservation): Promise<void>;
  watchedCount(): number;
  stop(): Promise<void>;
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

export function createChainWatch(
  chains: ChainRegistry,
  intents: IntentRepo,
  getRuntime: () => Runtime,
  log: (msg: string, fields: Record<string, unknown>) => void,
  submissions: Pick<SubmissionRepo, 'setOutcome'>,
): ChainWatch {
  const watchers = new Map<string, Watcher>();
  const registered = new Map<string, string>(); // intentId -> chain
  const requested = new Map<string, 'pending' | 'confirmed' | null>();
  let scheduled = false;

  const watcherFor = (chain: string): Watcher => {
    let w = watchers.get(chain);
    if (!w) {
      const network = chains.network(chain)!;
      w = chains.adapter(network.family).createWatcher(network, chains.pool(chain), (o) => void cw.report(o));
      watchers.set(chain, w);
    }
    return w;
  };

  const apply = () => {
    scheduled = false;
    const batch = [...requested];
    requested.clear();
    for (const [id, stage] of batch) {
      if (stage === null) continue;
      const row = intents.get(id);
      // Simulated transitions have no transaction to follow; a transaction known only by id
      // (null bytes) is followed without rebroadcast.
      if (!row || !row.txSignature) continue;
      registered.set(id, row.chain);
      watcherFor(row.chain).watch({
        intentId: id,
        chain: row.chain,
        txSignature: row.txSignature,
        signedTransaction: row.signedTransaction,
        watchData: row.watchData ?? {},
        stage,
        intent: {
          id, chain: row.chain, token: row.token, tokenAddress: row.tokenAddress, decimals: row.decimals,
          amountBaseUnits: row.amountBaseUnits, requestor: row.requestor, fulfiller: row.fulfiller,
        },
      });
    }
  };

  const cw: ChainWatch = {
    onWatch(intentId, stage) {
      if (stage === null) {
        const chain = registered.get(intentId);
        registered.delete(intentId);
        if (chain) watchers.get(chain)?.unwatch(intentId);
      }
      requested.set(intentId, stage);
      if (!scheduled) {
        scheduled = true;
        // After the current group commit: the new row (txSignature, signed bytes) is then visible.
        setImmediate(apply);
      }
    },
    async report(o) {
      try {
        await getRuntime().write((tx) => {
          const cur = tx.get(o.intentId);
          if (!cur) return null;
          const next = tx.apply(cur, toEvent(o, tx.now), 'ignore');
          // The submission row resolves in the same write as the verdict it follows from.
          if (next) submissions.setOutcome(cur.chain, o.txSignature, OUTCOME[o.type], tx.now);
          return next;
        });
      } catch (e) {
        log('chain report failed', { intent_id: o.intentId, type: o.type, error: String(e) });
      }
    },
    watchedCount: () => registered.size,
    async stop() {
      await Promise.all([...watchers.values()].map((w) => w.stop()));
      watchers.clear();
    },
  };
  return cw;
}
