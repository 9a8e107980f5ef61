// One followed transaction's decision for one tick, from reads of ONE node (contract 14): paid
// at depth or finality, failed and dropped only at or below the node's `finalized` tag, reorged
// only when that node is at or past the receipt's block and the receipt is gone.
import type { Hex } from 'viem';
import type { RpcPool } from '../../rpc/types';
import type { ChainObservation, Network, WatchItem } from '../types';
import { findNonceTaker, type NonceTaker } from './nonce-taker';
import { readReceipt, type RpcReceipt } from './receipt';
import { hexToNum, type RpcOutcome } from './rpc';
import { transferMismatches } from './transfer';

export type ObservationType = ChainObservation['type'];

export interface Tracked {
  item: WatchItem;
  /** Our signed bytes (what we rebroadcast); null when PayForge knows the transaction only by id. */
  ownHex: Hex | null;
  ownHash: Hex;
  /** The transaction we follow: ours, or a repriced copy that took our nonce. */
  hash: Hex;
  from: string;
  nonce: number;
  /** Head at submit: a node below it cannot speak about this transaction at all. */
  sinceBlock: number;
  /** Last head at which the nonce was seen unused: the lower bound of a nonce-taker search. */
  nonceFreeAt: number;
  lastSentAt: number;
  /** Block of the receipt (any outcome) of `hash` last seen; a node below it is behind, not reorged. */
  seenBlock: number | null;
  /** What was reported for the current inclusion (cleared by a reorg). */
  reported: Set<ObservationType>;
  last: { o: ChainObservation; at: number } | null;
  /** A different transaction holding our nonce, re-checked on the deciding node every tick. */
  taker: NonceTaker | null;
}

/** Everything one tick read for this transaction, all from the same node. */
export interface TickView {
  node: RpcPool;
  network: Network;
  head: number;
  /** The node's `finalized` tag; null when it has none (then nothing is ever final). */
  finalized: number | null;
  /**
   * The receipt of the transaction we follow, or of `t.taker` when one held our nonce at the
   * start of the tick (then ours cannot be on this node's chain: one nonce, one transaction).
   */
  receipt: RpcOutcome;
  /** The sender's nonce at `latest`; undefined when not asked (a receipt or taker known) or not answered. */
  senderNonce: number | undefined;
  emit(o: ChainObservation): void;
  /** Queue our own bytes for the tick's rebroadcast batch (rate-limited by the caller's clock). */
  rebroadcast(): void;
}

const isFinal = (v: TickView, block: number) => v.finalized !== null && block <= v.finalized;

type Base = { intentId: string; txSignature: string; follows: string };

/** Decide for one transaction; may search the same node for the nonce taker. */
export async function decide(t: Tracked, v: TickView): Promise<void> {
  // A node behind what we already saw for this transaction knows less than we do: skip the tick.
  const known = Math.max(t.seenBlock ?? -1, t.taker?.blockNumber ?? -1);
  if (v.head < known) return;
  if (!v.receipt.ok) return;
  // Under the hash we follow now (ours, or a repriced copy of it), about the row's transaction.
  const base = { intentId: t.item.intentId, txSignature: t.hash, follows: t.item.txSignature };
  const receipt = v.receipt.result as RpcReceipt | null;
  if (t.taker) {
    if (!receipt) {
      t.taker = null; // reorged out on this node: next tick reads our receipt and the nonce again
      return;
    }
    t.taker.blockNumber = hexToNum(receipt.blockNumber); // a reorg may have moved it
    return onTaker(t, v, t.taker, base);
  }
  if (receipt) return onReceipt(t, v, receipt, base);

  if (t.seenBlock !== null) {
    // This node is at or past the receipt's block and the receipt is gone: a reorg removed it.
    t.seenBlock = null;
    if (t.reported.has('confirmed')) {
      t.reported.clear();
      v.emit({ ...base, type: 'reorged' });
    }
    return; // the sender's nonce was not asked this tick; decide the rest on the next one
  }
  if (v.senderNonce === undefined) return;
  if (v.senderNonce <= t.nonce) {
    t.nonceFreeAt = v.head;
    if (t.hash !== t.ownHash) t.hash = t.ownHash; // a followed copy was reorged out: ours again
    v.rebroadcast();
    return;
  }
  // The nonce is used and the transaction we follow has no receipt here: who took it?
  t.taker ??= await findNonceTaker(v.node, t.from, t.nonce, t.nonceFreeAt, v.head);
  const taker = t.taker;
  if (!taker || taker.hash.toLowerCase() === t.hash.toLowerCase()) {
    t.taker = null; // not visible yet, or our own receipt lags on this node: next tick
    return;
  }
  if (transferMismatches(v.network, t.item.intent, { ...taker, signer: t.from }).length === 0) {
    // A repriced copy pays the intent: follow it from now on, under its own hash.
    t.hash = taker.hash;
    t.taker = null;
    t.nonceFreeAt = v.head;
    return;
  }
  onTaker(t, v, taker, base);
}

/** Another transaction holds our nonce on this node: dropped once it is final, until then resend. */
function onTaker(t: Tracked, v: TickView, taker: NonceTaker, base: Base): void {
  if (t.reported.has('confirmed') && v.head >= t.sinceBlock) {
    // Confirmed before a restart (receipt block unknown), and this node holds another
    // transaction at our nonce: on this chain we are not paid.
    t.reported.clear();
    v.emit({ ...base, type: 'reorged' });
  }
  // Until the taker is final a reorg can still put our transfer on chain: stay pending, resend.
  v.rebroadcast();
  if (isFinal(v, taker.blockNumber) && !t.reported.has('dropped')) v.emit({ ...base, type: 'dropped' });
}

function onReceipt(t: Tracked, v: TickView, receipt: RpcReceipt, base: Base): void {
  const r = readReceipt(receipt, t.item.intent);
  t.seenBlock = r.blockNumber;
  t.taker = null;
  const final = isFinal(v, r.blockNumber);
  if (r.kind !== 'paid') {
    // A revert one block deep can be undone by a reorg that re-includes the same bytes.
    if (!final || t.reported.has('failed')) return;
    if (r.kind === 'reverted') v.emit({ ...base, type: 'failed', reason: 'revert' });
    else v.emit({ ...base, type: 'failed', reason: 'program_error', message: 'transaction succeeded without the token Transfer' });
    return;
  }
  const depth = v.head - r.blockNumber + 1;
  if ((depth >= v.network.confirmations || final) && !t.reported.has('confirmed')) {
    // The row keeps the receipt's block: after a restart a reorg is still told from a lagging node.
    v.emit({ ...base, type: 'confirmed', watchData: { seenBlock: r.blockNumber } });
  }
  if (final && !t.reported.has('finalized')) v.emit({ ...base, type: 'finalized' });
}
