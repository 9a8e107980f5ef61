// Starts one payment detector per network (contract section 11) beside the chain watchers, and
// feeds what they find to recordFoundTransfer. Detectors read their work from committed rows
// (receivers of live intents and of intents closed within detection.lookbackSeconds).
//
// With work leases (issue 12) a chain is scanned only by the instance holding its `detect:<chain>`
// lease, and what the scan writes (found transfers, the scan's cursor) is fenced with that lease:
// a scan taken over mid-poll writes nothing, so its successor, which starts from the stored
// cursor, misses nothing the old one had seen.
import { checkFence } from '../actors/lease-fence';
import type { Tx } from '../actors/runtime';
import type { WorkLeases } from '../actors/work-leases';
import type { Detector, DetectionSource } from '../chains/types';
import { recordFoundTransfer } from './record-found-transfer';
import { watchedReceivers, wholeReceivers } from './watched-receivers';
import { watchedReferences } from './watched-references';
import type { Services } from './services';

export interface Detection {
  /** Scan exactly these chains from now on (the ones whose detect lease this instance holds). */
  follow(chains: ReadonlySet<string>): Promise<void>;
  stop(): Promise<void>;
}

type LogFn = (msg: string, fields: Record<string, unknown>) => void;

/** Without `work`, every chain is scanned at once; with it, only what `follow` names. */
export function startDetectors(s: Services, log: LogFn, work?: Pick<WorkLeases, 'owner' | 'fenceForChain'>): Detection {
  const running = new Map<string, Detector>();
  let stopped = false;

  const start = (chain: string) => {
    const network = s.chains.network(chain);
    if (!network || running.has(chain)) return;
    const adapter = s.chains.adapter(network.family);
    if (!adapter.createDetector) return;
    const lookbackMs = s.config.detection.lookbackSeconds * 1000;
    // The lease this scan runs under, taken when it starts: a later epoch is another scan.
    const fence = work ? work.fenceForChain(chain) : null;
    const guard = work ? (tx: Tx) => checkFence(tx.repos.leases, fence, work.owner, `detect:${chain}`) : undefined;
    const source: DetectionSource = {
      // The whole look-back once per refresh, the closes since the last poll in between (both).
      // The whole read in pages with a turn of the event loop between them.
      receivers: watchedReceivers(
        async (closedSince) => s.detection.receivers(chain, closedSince),
        lookbackMs,
        Date.now,
        (closedSince) => wholeReceivers(s.detection, chain, closedSince),
      ),
      references: watchedReferences(async (closedSince) => s.detection.references(chain, closedSince), lookbackMs),
      unfinalized: async () => s.detection.unfinalizedMatches(chain),
      getCursor: async (key) => s.detection.getCursor(chain, key),
      setCursor: async (key, value) => {
        if (!guard) return s.detection.setCursor(chain, key, value, Date.now());
        await s.runtime.write(async (tx) => {
          await guard(tx);
          await tx.repos.detection.setCursor(chain, key, value, tx.now);
        });
      },
      report: async (t) => void (await recordFoundTransfer(s, t, guard)),
      log,
    };
    running.set(chain, adapter.createDetector(network, s.chains.pool(chain), source));
  };

  const stopChain = async (chain: string) => {
    const d = running.get(chain);
    running.delete(chain);
    await d?.stop();
  };

  if (!work) for (const chain of s.chains.networks.keys()) start(chain);
  return {
    async follow(chains) {
      if (stopped) return;
      const gone = [...running.keys()].filter((c) => !chains.has(c));
      for (const chain of chains) start(chain);
      await Promise.all(gone.map(stopChain));
    },
    async stop() {
      stopped = true;
      await Promise.all([...running.keys()].map(stopChain));
    },
  };
}
