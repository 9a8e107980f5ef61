// The Solana watcher: one polling loop per network follows every pending/confirmed transaction
// with batched getSignatureStatuses, rebroadcasts pending bytes, and reports what it sees.
import type { RpcPool } from '../../rpc/types';
import type { ChainObservation, Network, WatchItem, Watcher } from '../types';
import { defaultWatcherLog, type WatcherLog } from '../watcher-log';
import { describeError, failureReasonOf } from './failure';
import { MAX_SIGNATURES_PER_STATUS_CALL } from './programs';
import { getBlockHeight, getSignatureStatuses, sendTransaction, type RpcSignatureStatus } from './rpc';

interface Followed {
  item: WatchItem;
  stage: 'pending' | 'confirmed';
  lastValidBlockHeight: number | null;
  lastSentAt: number;
}

export interface SolanaWatcherOptions {
  /** Where RPC trouble is logged (through src/log.ts); the loop itself never stops on it. */
  log?: WatcherLog;
  now?: () => number;
}

export function createWatcher(
  network: Network,
  rpc: RpcPool,
  report: (o: ChainObservation) => void,
  opts: SolanaWatcherOptions = {},
): Watcher {
  const log = opts.log ?? defaultWatcherLog('solana watcher', network.chain);
  const now = opts.now ?? Date.now;
  const followed = new Map<string, Followed>();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;

  const emit = (o: ChainObservation) => {
    try {
      report(o);
    } catch (e) {
      log(`report for ${o.intentId} threw`, e);
    }
  };

  async function tick(): Promise<void> {
    const items = [...followed.values()];
    if (items.length === 0) return;
    const statuses = await lookUp(items.map((f) => f.item.txSignature), false);
    const unknown: Followed[] = [];
    for (const f of items) {
      const s = statuses.get(f.item.txSignature) ?? null;
      if (s === null) unknown.push(f);
      else apply(f, s);
    }
    if (unknown.length > 0) await resolveUnknown(unknown);
  }

  /** Statuses by signature, in batches of 256 (the RPC's limit). */
  async function lookUp(signatures: string[], searchTransactionHistory: boolean) {
    const unique = [...new Set(signatures)];
    const out = new Map<string, RpcSignatureStatus | null>();
    for (let i = 0; i < unique.length; i += MAX_SIGNATURES_PER_STATUS_CALL) {
      const batch = unique.slice(i, i + MAX_SIGNATURES_PER_STATUS_CALL);
      const values = await getSignatureStatuses(rpc, batch, searchTransactionHistory);
      batch.forEach((sig, k) => out.set(sig, values[k] ?? null));
    }
    return out;
  }

  function apply(f: Followed, s: RpcSignatureStatus): void {
    const { intentId, txSignature } = f.item;
    if (followed.get(intentId) !== f) return; // replaced or unwatched meanwhile
    if (s.err !== null && s.err !== undefined) {
      emit({ type: 'failed', intentId, txSignature, reason: failureReasonOf(s.err), message: describeError(s.err) });
      followed.delete(intentId);
      return;
    }
    if (s.confirmationStatus === 'finalized') {
      if (f.stage === 'pending') emit({ type: 'confirmed', intentId, txSignature });
      emit({ type: 'finalized', intentId, txSignature });
      followed.delete(intentId);
      return;
    }
    if (s.confirmationStatus === 'confirmed' && f.stage === 'pending') {
      emit({ type: 'confirmed', intentId, txSignature });
      f.stage = 'confirmed';
    }
    // 'processed': landed in a block the cluster has not voted on yet; wait, no rebroadcast needed.
  }

  /**
   * Signatures the recent status cache does not know: not landed yet, landed long ago (only the
   * history has them), expired, or removed by a fork. Decide which, never guessing "dropped".
   */
  async function resolveUnknown(unknown: Followed[]): Promise<void> {
    const pending = unknown.filter((f) => f.stage === 'pending');
    const confirmed = unknown.filter((f) => f.stage === 'confirmed');
    // Read the finalized height BEFORE searching history: a transaction can only land at a height
    // up to its lastValidBlockHeight, so once that height is finalized a miss in the history is final.
    const expired =
      pending.some((f) => f.lastValidBlockHeight !== null) ? await expiredFilter(pending) : [];
    const toSearch = [...expired, ...confirmed];
    const history = toSearch.length > 0 ? await lookUp(toSearch.map((f) => f.item.txSignature), true) : new Map();
    for (const f of toSearch) {
      const s = history.get(f.item.txSignature) ?? null;
      if (s !== null) {
        apply(f, s);
        continue;
      }
      if (followed.get(f.item.intentId) !== f) continue;
      const { intentId, txSignature } = f.item;
      if (f.stage === 'confirmed') {
        // Was confirmed, now unknown even to the history: a fork removed it. It may land again,
        // so keep following it as pending (and keep rebroadcasting the same bytes).
        emit({ type: 'reorged', intentId, txSignature });
        f.stage = 'pending';
      } else {
        emit({ type: 'dropped', intentId, txSignature });
        followed.delete(intentId);
      }
    }
    await rebroadcast(pending.filter((f) => followed.get(f.item.intentId) === f));
  }

  async function expiredFilter(pending: Followed[]): Promise<Followed[]> {
    const finalizedHeight = await getBlockHeight(rpc, 'finalized');
    return pending.filter((f) => f.lastValidBlockHeight !== null && finalizedHeight > f.lastValidBlockHeight);
  }

  async function rebroadcast(pending: Followed[]): Promise<void> {
    const t = now();
    // Null bytes: known only by its signature (submit by txSignature): followed, never resent.
    const due = pending.filter((f) => f.item.signedTransaction !== null && t - f.lastSentAt >= network.rebroadcastIntervalMs);
    await Promise.all(
      due.map(async (f) => {
        f.lastSentAt = t;
        try {
          // No preflight: the bytes passed it at submit, and on a resend it would only report
          // AlreadyProcessed or an expired blockhash, which the status look-ups handle.
          await sendTransaction(rpc, f.item.signedTransaction!, { skipPreflight: true });
        } catch (e) {
          log(`rebroadcast of ${f.item.txSignature} failed`, e);
        }
      }),
    );
  }

  function schedule(): void {
    if (stopped || timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      running = tick()
        .catch((e) => log('status poll failed; retrying next interval', e))
        .finally(() => {
          running = null;
          schedule();
        });
    }, network.pollIntervalMs);
  }

  return {
    watch(item: WatchItem): void {
      if (stopped) return;
      const lvbh = item.watchData.lastValidBlockHeight;
      followed.set(item.intentId, {
        item,
        stage: item.stage,
        lastValidBlockHeight: typeof lvbh === 'number' ? lvbh : null,
        // The submit verb just broadcast these bytes; rehydration re-adds items, and a resend one
        // interval later is harmless either way.
        lastSentAt: now(),
      });
      schedule();
    },
    unwatch(intentId: string): void {
      followed.delete(intentId);
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      if (running) await running;
      followed.clear();
    },
  };
}
