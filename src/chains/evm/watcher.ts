// The EVM watcher: one poller per network follows every submitted transfer with one JSON-RPC
// batch per tick (head, finalized tag, receipts, sender nonces), rebroadcasts while the nonce is
// unused, and tells a repriced copy of the same transfer (paid) from a different nonce taker (dropped).
import { keccak256, type Hex } from 'viem';
import type { RpcPool } from '../../rpc/types';
import type { ChainObservation, Network, WatchItem, Watcher } from '../types';
import { base64ToHex } from './codec';
import { findNonceTaker, type NonceTaker } from './nonce-taker';
import { readReceipt, type RpcReceipt } from './receipt';
import { batch, hexToNum, type RpcCall, type RpcOutcome } from './rpc';
import { transferMismatches } from './transfer';

type ObservationType = ChainObservation['type'];

interface Tracked {
  item: WatchItem;
  /** Our signed bytes and their hash: what we rebroadcast. */
  ownHex: Hex;
  ownHash: Hex;
  /** The transaction we follow: ours, or a repriced copy that took our nonce. */
  hash: Hex;
  from: string;
  nonce: number;
  /** Last head at which the nonce was seen unused: the lower bound of a nonce-taker search. */
  nonceFreeAt: number;
  lastSentAt: number;
  /** Block hash of the paid receipt we last saw; a later miss means a reorg removed it. */
  seenIn: string | null;
  /** What was reported for the current inclusion (cleared by a reorg). */
  reported: Set<ObservationType>;
  last: { o: ChainObservation; at: number } | null;
  /** The different transaction that took our nonce, once found (it does not change). */
  taker: NonceTaker | null;
}

export interface EvmWatcherOptions {
  /** Called with each failed tick (RPC down, bad answers); the watcher carries on regardless. */
  onError?: (e: unknown) => void;
  /** Re-send the latest observation this often, for a runtime that was busy the first time. */
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

  const onError =
    opts.onError ??
    ((e: unknown) => {
      // Unattended: a log line a minute is enough to notice a dead upstream without flooding.
      if (Date.now() - lastWarnAt < 60_000) return;
      lastWarnAt = Date.now();
      console.warn(`[evm watcher ${network.chain}] tick failed: ${(e as Error)?.message ?? String(e)}`);
    });

  function emit(t: Tracked, o: ChainObservation): void {
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
    // Nonces matter only while a transaction has no receipt (dropped or replaced?): once mined,
    // asking for its sender's nonce every tick until finality is wasted RPC.
    const senders = [...new Set(items.filter((t) => t.seenIn === null).map((t) => t.from.toLowerCase()))];
    const calls: RpcCall[] = [
      { method: 'eth_blockNumber', params: [] },
      { method: 'eth_getBlockByNumber', params: ['finalized', false] },
      ...items.map((t) => ({ method: 'eth_getTransactionReceipt', params: [t.hash] })),
      ...senders.map((s) => ({ method: 'eth_getTransactionCount', params: [s, 'latest'] })),
    ];
    const out = await batch(rpc, calls);
    const headO = out[0]!;
    if (!headO.ok) throw new Error(`eth_blockNumber: ${headO.message}`);
    const head = hexToNum(headO.result);
    const finO = out[1]!;
    // Nodes without the finalized tag simply never finalize here; confirmations still work.
    const finalized = finO.ok && finO.result ? hexToNum((finO.result as { number: string }).number) : null;
    const nonces = new Map<string, number>();
    senders.forEach((s, i) => {
      const o = out[2 + items.length + i]!;
      if (o.ok) nonces.set(s, hexToNum(o.result));
    });
    const resend: Hex[] = [];
    for (const [i, t] of items.entries()) {
      if (stopped) return;
      // Skip anything unwatched or replaced while the batch was in flight.
      if (tracked.get(t.item.intentId) !== t) continue;
      try {
        await follow(t, out[2 + i]!, head, finalized, nonces.get(t.from.toLowerCase()), resend);
      } catch (e) {
        onError(e);
      }
    }
    // Same bytes, no re-sign, one batch: refusals (underpriced, already known) change nothing here.
    if (resend.length > 0 && !stopped) await batch(rpc, resend.map((hex) => ({ method: 'eth_sendRawTransaction', params: [hex] })));
  }

  async function follow(
    t: Tracked,
    receiptO: RpcOutcome,
    head: number,
    finalized: number | null,
    senderNonce: number | undefined,
    resend: Hex[],
  ) {
    if (!receiptO.ok) return;
    const base = { intentId: t.item.intentId, txSignature: t.hash };
    const receipt = receiptO.result as RpcReceipt | null;
    if (receipt) {
      const v = readReceipt(receipt, t.item.intent);
      if (v.kind === 'reverted') {
        if (!t.reported.has('failed')) emit(t, { ...base, type: 'failed', reason: 'revert' });
      } else if (v.kind === 'no_transfer') {
        if (!t.reported.has('failed')) {
          emit(t, { ...base, type: 'failed', reason: 'program_error', message: 'transaction succeeded without the token Transfer' });
        }
      } else {
        t.seenIn = v.blockHash;
        const depth = head - v.blockNumber + 1;
        const isFinal = finalized !== null && v.blockNumber <= finalized;
        if ((depth >= network.confirmations || isFinal) && !t.reported.has('confirmed')) emit(t, { ...base, type: 'confirmed' });
        if (isFinal && !t.reported.has('finalized')) emit(t, { ...base, type: 'finalized' });
      }
      repeatLatest(t);
      return;
    }

    if (t.seenIn !== null || t.reported.has('confirmed')) {
      // The receipt we counted is gone: a reorg. Back to pending; the bytes go out again below.
      t.seenIn = null;
      t.reported.clear();
      emit(t, { ...base, type: 'reorged' });
    }
    if (senderNonce === undefined) return;
    if (senderNonce <= t.nonce) {
      t.nonceFreeAt = head;
      if (t.hash !== t.ownHash) t.hash = t.ownHash; // a followed copy was reorged out: ours again
      if (Date.now() - t.lastSentAt >= network.rebroadcastIntervalMs) {
        t.lastSentAt = Date.now();
        resend.push(t.ownHex);
      }
      repeatLatest(t);
      return;
    }
    // The nonce is used and our followed transaction has no receipt: who took it?
    t.taker ??= await findNonceTaker(rpc, t.from, t.nonce, t.nonceFreeAt, head);
    const taker = t.taker;
    if (!taker || taker.hash === t.hash) return; // not visible yet, or our receipt lags: next tick
    const sameTransfer =
      transferMismatches(network, t.item.intent, { ...taker, signer: t.from }).length === 0;
    if (sameTransfer) {
      // A repriced copy pays the intent: follow it from now on, under its own hash.
      t.hash = taker.hash;
      t.taker = null;
      t.nonceFreeAt = head;
      return;
    }
    if (!t.reported.has('dropped')) emit(t, { ...base, type: 'dropped' });
    repeatLatest(t);
  }

  function repeatLatest(t: Tracked): void {
    // Never repeat a reorg: the runtime would move a pending intent to pending again (a new event).
    if (t.last && t.last.o.type !== 'reorged' && Date.now() - t.last.at >= repeatMs) emit(t, t.last.o);
  }

  return {
    watch(item: WatchItem): void {
      if (stopped) return;
      const ownHex = base64ToHex(item.signedTransaction);
      const ownHash = keccak256(ownHex);
      const from = String(item.watchData.from);
      const nonce = Number(item.watchData.nonce);
      const sinceBlock = Number(item.watchData.sinceBlock ?? 0);
      const t: Tracked = {
        item,
        ownHex,
        ownHash,
        hash: item.txSignature as Hex,
        from,
        nonce,
        nonceFreeAt: Number.isFinite(sinceBlock) ? sinceBlock : 0,
        lastSentAt: Date.now(),
        seenIn: null,
        // A confirmed intent has had its confirmation; only finality or a reorg is news.
        reported: new Set(item.stage === 'confirmed' ? ['confirmed'] : []),
        last: null,
        taker: null,
      };
      tracked.set(item.intentId, t);
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
