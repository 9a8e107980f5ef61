// The Solana watcher: one polling loop per network follows every pending/confirmed transaction.
// Each tick pins ONE upstream and hands every transaction to verdict.ts with it; what that node's
// history cannot decide is decided again, whole, on the next upstream. It rebroadcasts pending
// bytes while they can still land, and re-reports each latest verdict until the runtime unwatches
// the intent (a failed write loses nothing).
import type { RpcPool } from '../../rpc/types';
import type { ChainObservation, Network, WatchItem, Watcher } from '../types';
import { defaultWatcherLog, type WatcherLog } from '../watcher-log';
import { sendTransaction } from './rpc';
import { decideOn, settled, type Decision, type Followed } from './verdict';
import { HASH_WINDOW_SLOTS, readWatchData, type WatchFacts } from './watch-data';

export interface SolanaWatcherOptions {
  /** Where RPC trouble is logged (through src/log.ts); the loop itself never stops on it. */
  log?: WatcherLog;
  now?: () => number;
  /** Re-send the latest observation this often, for a runtime whose write of it may have failed. */
  repeatMs?: number;
}

/** What is remembered of unwatched transactions (the runtime unwatches and re-watches at each transition). */
const MEMORY = 10_000;

/**
 * A confirmed intent was seen landed somewhere; with no record of where, it landed while its
 * blockhash was valid, so no later than one hash window after the slot the hash was known at.
 */
const landedBy = (facts: WatchFacts): number | null => facts.landedSlot ?? (facts.hashSlot === null ? null : facts.hashSlot + HASH_WINDOW_SLOTS);

export function createWatcher(
  network: Network,
  rpc: RpcPool,
  report: (o: ChainObservation) => void,
  opts: SolanaWatcherOptions = {},
): Watcher {
  const log = opts.log ?? defaultWatcherLog('solana watcher', network.chain);
  const now = opts.now ?? Date.now;
  const repeatMs = opts.repeatMs ?? 15_000;
  const followed = new Map<string, Followed>();
  // By signature: where it was seen and whether it pays survive an unwatch/watch pair.
  const memory = new Map<string, Followed>();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;

  const emit = (f: Followed, o: ChainObservation) => {
    // A verdict decided across an await (getTransaction) about a transaction unwatched or replaced
    // meanwhile is no longer this watcher's to say (the runtime checks the row too).
    if (stopped || followed.get(f.item.intentId) !== f) return;
    f.reported.add(o.type);
    f.last = { o, at: now() };
    try {
      report(o);
    } catch (e) {
      log(`report for ${o.intentId} threw`, e);
    }
  };
  const decision = (node: RpcPool): Decision => ({ node, emit, current: (f) => !stopped && followed.get(f.item.intentId) === f });

  async function tick(): Promise<void> {
    const all = [...followed.values()];
    const open = all.filter((f) => !settled(f));
    if (open.length > 0) {
      // Every read behind this tick's verdicts comes from one node; a failure there abandons them all.
      const primary = rpc.pin();
      const first = await decideOn(decision(primary), open);
      let undecided = first.undecided;
      // A node without the history a verdict needs has no say: the decision is made again, from
      // the start, on each other upstream in turn.
      for (const node of rpc.pinEach?.() ?? []) {
        if (undecided.length === 0 || stopped) break;
        if (node.pinnedTo === primary.pinnedTo) continue;
        try {
          undecided = (await decideOn(decision(node), undecided)).undecided;
        } catch (e) {
          log(`no decision on ${node.pinnedTo}; next tick`, e);
        }
      }
      await rebroadcast(first.resend.filter((f) => followed.get(f.item.intentId) === f && !settled(f)));
    }
    for (const f of all) repeatLatest(f);
  }

  function repeatLatest(f: Followed): void {
    if (stopped || followed.get(f.item.intentId) !== f || !f.last || now() - f.last.at < repeatMs) return;
    // A reorg is repeated only while the row, as last handed to watch(), still says confirmed:
    // on a pending intent it would be a new intent.pending.
    if (f.last.o.type !== 'reorged' || f.item.stage === 'confirmed') emit(f, f.last.o);
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
    if (stopped || timer !== null || running !== null) return;
    timer = setTimeout(() => {
      timer = null;
      running = tick()
        .catch((e) => log('status poll failed; retrying next interval', e))
        .finally(() => {
          running = null;
          if (followed.size > 0) schedule();
        });
    }, network.pollIntervalMs);
  }

  function fresh(item: WatchItem): Followed {
    const facts = readWatchData(item.watchData);
    const known = memory.get(item.txSignature);
    return {
      item,
      facts,
      reported: new Set(item.stage === 'confirmed' ? ['confirmed'] : []),
      seenSlot: known?.seenSlot ?? (item.stage === 'confirmed' ? landedBy(facts) : null),
      pays: known?.pays ?? null,
      // The submit verb just broadcast these bytes; rehydration re-adds items, and a resend one
      // interval later is harmless either way.
      lastSentAt: known?.lastSentAt ?? now(),
      last: null,
    };
  }

  function remember(f: Followed): void {
    memory.delete(f.item.txSignature);
    memory.set(f.item.txSignature, f);
    if (memory.size > MEMORY) memory.delete(memory.keys().next().value!);
  }

  return {
    watch(item: WatchItem): void {
      if (stopped) return;
      const cur = followed.get(item.intentId);
      if (cur && cur.item.txSignature === item.txSignature) {
        // Re-watched from the row (idempotent): keep what we know of the chain, but take what was
        // reported from the row's stage, so a verdict whose write was lost is derived again.
        cur.item = item;
        cur.facts = readWatchData(item.watchData);
        if (item.stage === 'confirmed') cur.reported.add('confirmed');
        else cur.reported.clear();
        // Confirmed by someone else (detection) before this watcher saw it land: where the row says
        // it landed, so a reorg is still told from a node that is behind (contract 14).
        if (item.stage === 'confirmed') cur.seenSlot ??= landedBy(cur.facts);
      } else {
        followed.set(item.intentId, fresh(item));
      }
      schedule();
    },
    unwatch(intentId: string): void {
      const f = followed.get(intentId);
      if (f) remember(f);
      followed.delete(intentId);
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      if (running !== null) await running;
      followed.clear();
      memory.clear();
    },
  };
}
