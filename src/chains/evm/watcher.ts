// The EVM watcher: one poller per network follows every submitted transfer with one JSON-RPC
// batch per tick (head, finalized tag, receipts, sender nonces) read from ONE pinned node, hands
// each transaction to verdict.ts, rebroadcasts our bytes while they can still land, and keeps
// re-reporting each latest verdict until the runtime unwatches it (a failed write loses nothing).
import { keccak256, type Hex } from 'viem';
import type { RpcPool } from '../../rpc/types';
import type { ChainObservation, Network, WatchItem, Watcher } from '../types';
import { defaultWatcherLog, type WatcherLog } from '../watcher-log';
import { base64ToHex } from './codec';
import { batch, hexToNum, type RpcCall } from './rpc';
import { decide, type Tracked } from './verdict';

export interface EvmWatcherOptions {
  /** Called with each failed tick (RPC down, bad answers); the watcher carries on regardless. */
  onError?: (e: unknown) => void;
  /** Where the default onError logs (through src/log.ts), at most once a minute. */
  log?: WatcherLog;
  /** Re-send the latest observation this often, for a runtime whose write of it may have failed. */
  repeatMs?: number;
}

export function createEvmWatcher(
  network: Network,
  rpc: RpcPool,
  report: (o: ChainObservation) => void,
  opts: EvmWatcherOptions = {},
): Watcher {
  const tracked = new Map<string, Tracked>();
  const repeatMs = opts.repeatMs ?? 15_000;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  let lastWarnAt = 0;

  const log = opts.log ?? defaultWatcherLog('evm watcher', network.chain);
  const onError =
    opts.onError ??
    ((e: unknown) => {
      // Unattended: a log line a minute is enough to notice a dead upstream without flooding.
      if (Date.now() - lastWarnAt < 60_000) return;
      lastWarnAt = Date.now();
      log('tick failed', e);
    });

  function emit(t: Tracked, o: ChainObservation): void {
    // A verdict decided across an await (the nonce-taker search) about a transaction unwatched
    // or replaced meanwhile is no longer this watcher's to say (the runtime checks the row too).
    if (stopped || tracked.get(t.item.intentId) !== t) return;
    t.reported.add(o.type);
    t.last = { o, at: Date.now() };
    try {
      report(o);
    } catch (e) {
      onError(e);
    }
  }

  function schedule(): void {
    if (stopped || timer || running) return;
    timer = setTimeout(() => {
      timer = null;
      running = tick()
        .catch(onError)
        .finally(() => {
          running = null;
          if (tracked.size > 0) schedule();
        });
    }, network.pollIntervalMs);
  }

  async function tick(): Promise<void> {
    const items = [...tracked.values()];
    if (items.length === 0) return;
    // Every read behind this tick's verdicts comes from one node; if it fails mid-tick the
    // decision is abandoned (rpc.unavailable) and made again next tick, maybe on another node.
    const node = rpc.pin();
    // Nonces matter only while a transaction has no receipt and no known taker (dropped or
    // replaced?): once mined, asking for its sender's nonce every tick until finality is wasted.
    const senders = [...new Set(items.filter((t) => t.seenBlock === null && t.taker === null).map((t) => t.from.toLowerCase()))];
    const calls: RpcCall[] = [
      { method: 'eth_blockNumber', params: [] },
      { method: 'eth_getBlockByNumber', params: ['finalized', false] },
      // With a taker known, its receipt alone tells whether the nonce is still taken (and where).
      ...items.map((t) => ({ method: 'eth_getTransactionReceipt', params: [t.taker?.hash ?? t.hash] })),
      ...senders.map((s) => ({ method: 'eth_getTransactionCount', params: [s, 'latest'] })),
    ];
    const out = await batch(node, calls);
    const headO = out[0]!;
    if (!headO.ok) throw new Error(`eth_blockNumber: ${headO.message}`);
    const head = hexToNum(headO.result);
    const finO = out[1]!;
    // Nodes without the finalized tag never finalize here: nothing is final, so no drop or failure either.
    const finalized = finO.ok && finO.result ? hexToNum((finO.result as { number: string }).number) : null;
    const nonces = new Map<string, number>();
    senders.forEach((s, i) => {
      const o = out[2 + items.length + i]!;
      if (o.ok) nonces.set(s, hexToNum(o.result));
    });
    const resend: Hex[] = [];
    const now = Date.now();
    for (const [i, t] of items.entries()) {
      if (stopped) return;
      // Skip anything unwatched or replaced while the batch was in flight.
      if (tracked.get(t.item.intentId) !== t) continue;
      try {
        await decide(t, {
          node, network, head, finalized,
          receipt: out[2 + i]!,
          senderNonce: nonces.get(t.from.toLowerCase()),
          emit: (o) => emit(t, o),
          rebroadcast: () => {
            // A transaction known only by id is followed, never sent (we do not hold its bytes).
            if (t.ownHex === null || now - t.lastSentAt < network.rebroadcastIntervalMs) return;
            t.lastSentAt = now;
            resend.push(t.ownHex);
          },
        });
      } catch (e) {
        onError(e);
      }
      repeatLatest(t);
    }
    // Same bytes, no re-sign, one batch: refusals (underpriced, nonce too low) change nothing here.
    if (resend.length > 0 && !stopped) await batch(rpc, resend.map((hex) => ({ method: 'eth_sendRawTransaction', params: [hex] })));
  }

  function repeatLatest(t: Tracked): void {
    // A reorg is repeated only while the row, as last handed to watch(), still says confirmed:
    // on a pending intent it would be a new intent.pending.
    const due = t.last && Date.now() - t.last.at >= repeatMs;
    if (due && (t.last!.o.type !== 'reorged' || t.item.stage === 'confirmed')) emit(t, t.last!.o);
  }

  /**
   * A confirmed row names the block where its receipt was seen (by detection, or by a watcher
   * before a restart): without it a watcher that never read the receipt itself could not tell a
   * reorg (that node at or past the block, receipt gone) from a node that is behind (contract 14).
   */
  function seenOnRow(item: WatchItem): number | null {
    const seen = item.watchData.seenBlock;
    if (item.stage !== 'confirmed' || seen === undefined || seen === null) return null;
    const n = Number(seen);
    return Number.isSafeInteger(n) && n >= 0 ? n : null;
  }

  function fresh(item: WatchItem): Tracked {
    const ownHex = item.signedTransaction === null ? null : base64ToHex(item.signedTransaction);
    const hash = item.txSignature as Hex;
    const sinceBlock = Number(item.watchData.sinceBlock ?? 0);
    const since = Number.isFinite(sinceBlock) ? sinceBlock : 0;
    return {
      item,
      ownHex,
      ownHash: ownHex === null ? hash : keccak256(ownHex),
      hash,
      from: String(item.watchData.from),
      nonce: Number(item.watchData.nonce),
      sinceBlock: since,
      nonceFreeAt: since,
      lastSentAt: Date.now(),
      seenBlock: seenOnRow(item),
      // A confirmed intent has had its confirmation; only finality or a reorg is news.
      reported: new Set(item.stage === 'confirmed' ? ['confirmed'] : []),
      last: null,
      taker: null,
    };
  }

  return {
    watch(item: WatchItem): void {
      if (stopped) return;
      const cur = tracked.get(item.intentId);
      if (cur && cur.item.txSignature === item.txSignature) {
        // Re-watched from the row (idempotent): keep what we know of the chain, but take what was
        // reported from the row's stage, so a verdict whose write was lost is derived again.
        cur.item = item;
        if (item.stage === 'confirmed') cur.reported.add('confirmed');
        else cur.reported.clear();
        cur.seenBlock ??= seenOnRow(item);
      } else {
        tracked.set(item.intentId, fresh(item));
      }
      schedule();
    },
    unwatch(intentId: string): void {
      tracked.delete(intentId);
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      tracked.clear();
      await running;
    },
  };
}
