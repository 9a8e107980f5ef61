// One node's decision for the transactions the Solana watcher follows (contract 14): every read
// behind a verdict comes from `node`, a pinned upstream. Paid only when the requestor's token
// account was credited; failed only at finalized; dropped only when the blockhash is dead at
// finalized and the history of a node that reaches back to the submit has no trace of it; a node
// behind the slot where a transaction was seen is never read as a reorg.
import { RpcCallError, type RpcPool } from '../../rpc/types';
import type { ChainObservation, WatchItem } from '../types';
import { associatedTokenAddress } from './ata';
import { describeError, failureReasonOf } from './failure';
import { netCredit } from './movement';
import { MAX_SIGNATURES_PER_STATUS_CALL } from './programs';
import {
  firstAvailableSlot,
  getBlockHeight,
  getSignatureStatusesAt,
  getTransaction,
  isBlockhashValid,
  type RpcSignatureStatus,
} from './rpc';
import type { WatchFacts } from './watch-data';

export type ObservationType = ChainObservation['type'];

export interface Followed {
  item: WatchItem;
  facts: WatchFacts;
  /** What was reported for the current inclusion ('confirmed' = the intent is past pending). */
  reported: Set<ObservationType>;
  /** Highest slot it was seen landed at; a node whose tip is below it knows less than we do. */
  seenSlot: number | null;
  /** Whether its balance changes pay the intent (getTransaction); null until read. */
  pays: boolean | null;
  lastSentAt: number;
  last: { o: ChainObservation; at: number } | null;
}

export interface Decision {
  /** The one upstream every read of this decision goes to. */
  node: RpcPool;
  emit(f: Followed, o: ChainObservation): void;
  /** False once unwatched or replaced while the reads were in flight. */
  current(f: Followed): boolean;
}

export interface Outcome {
  /** Needed a history search this node cannot give (its ledger starts after the submit): ask another node. */
  undecided: Followed[];
  /** Unknown to this node and still able to land: send the same bytes again. */
  resend: Followed[];
}

export const settled = (f: Followed): boolean => f.reported.has('finalized') || f.reported.has('failed') || f.reported.has('dropped');

const base = (f: Followed) => ({ intentId: f.item.intentId, txSignature: f.item.txSignature, follows: f.item.txSignature });

/** Decide on one node. Transport trouble throws (rpc.unavailable): the decision is abandoned, made again next tick. */
export async function decideOn(d: Decision, items: Followed[]): Promise<Outcome> {
  const out: Outcome = { undecided: [], resend: [] };
  const recent = await statuses(d.node, items, false);
  const unknown: Followed[] = [];
  for (const f of items) {
    if (!d.current(f)) continue;
    const s = recent.bySignature.get(f.item.txSignature) ?? null;
    if (s !== null) {
      if (!(await onStatus(d, f, s))) out.undecided.push(f);
    } else if (f.seenSlot === null || recent.tip >= f.seenSlot) {
      unknown.push(f);
    } // else: behind the slot where we saw it: this node has not seen what we saw, which is not a reorg
  }
  if (unknown.length === 0) return out;

  const pending = unknown.filter((f) => !f.reported.has('confirmed'));
  // Expiry is read BEFORE the history: a transaction lands only while its blockhash is valid, so
  // a miss in a history searched after the hash died at finalized is a miss for good.
  const expired = await expiredOnes(d.node, pending.filter((f) => f.facts.blockhash !== null));
  out.resend = pending.filter((f) => !expired.has(f));
  // Confirmed ones (reorged?), expired ones (dropped?), and ones known only landed (found again?).
  const toSearch = unknown.filter((f) => f.reported.has('confirmed') || expired.has(f) || f.facts.blockhash === null);
  if (toSearch.length === 0) return out;

  const history = await statuses(d.node, toSearch, true);
  const ledgerFrom = await firstAvailableSlot(d.node);
  for (const f of toSearch) {
    if (!d.current(f)) continue;
    const s = history.bySignature.get(f.item.txSignature) ?? null;
    if (s !== null) {
      if (!(await onStatus(d, f, s))) out.undecided.push(f);
      continue;
    }
    // A node whose ledger starts after the submit (restarted from a snapshot, pruned) cannot
    // tell "never landed" from "landed before my history": it has no say.
    if (ledgerFrom === null || ledgerFrom > f.facts.historyFromSlot) {
      out.undecided.push(f);
      continue;
    }
    if (f.reported.has('confirmed')) {
      // Where it was seen is unknown (rehydrated without a landing slot): no reorg verdict.
      if (f.seenSlot === null || history.tip < f.seenSlot) continue;
      // This node is at or past where it was confirmed, its history reaches back, and it is
      // gone: a fork removed it. It may land again: follow it as pending, resending the bytes.
      f.reported.clear();
      f.seenSlot = null;
      f.pays = null;
      d.emit(f, { ...base(f), type: 'reorged' });
    } else if (expired.has(f)) {
      d.emit(f, { ...base(f), type: 'dropped' });
    }
  }
  return out;
}

/**
 * What one status says about a transaction that landed (maybe failed); may read getTransaction.
 * False when this node cannot hand over the transaction it reports (no copy in its ledger).
 */
async function onStatus(d: Decision, f: Followed, s: RpcSignatureStatus): Promise<boolean> {
  f.seenSlot = s.slot;
  const at = s.confirmationStatus;
  if (s.err !== null && s.err !== undefined) {
    // A failure on a fork that is not final can be undone: the same bytes may land elsewhere.
    if (at === 'finalized' && !f.reported.has('failed')) {
      d.emit(f, { ...base(f), type: 'failed', reason: failureReasonOf(s.err), message: describeError(s.err) });
    }
    return true;
  }
  if (at !== 'confirmed' && at !== 'finalized') return true; // processed: not voted on yet
  if (!f.reported.has('confirmed')) {
    f.pays ??= await paysIntent(d.node, f);
    if (f.pays === null) return false; // this node has no copy of it (yet): another node, or next tick
    if (!f.pays) {
      // It landed and moved less than the amount to the requestor (e.g. a delegate's self-transfer):
      // never paid. Once final it is a failure the payer sees; until then it stays pending.
      if (at === 'finalized' && !f.reported.has('failed')) {
        d.emit(f, { ...base(f), type: 'failed', reason: 'program_error', message: "the transaction did not credit the requestor's token account with the amount" });
      }
      return true;
    }
    d.emit(f, { ...base(f), type: 'confirmed' });
  }
  if (at === 'finalized' && !f.reported.has('finalized')) d.emit(f, { ...base(f), type: 'finalized' });
  return true;
}

/** Net credit to the requestor's token account for the mint, from the same node; null when it has no copy yet. */
async function paysIntent(node: RpcPool, f: Followed): Promise<boolean | null> {
  const tx = await getTransaction(node, f.item.txSignature, 'confirmed');
  if (!tx?.meta || (tx.meta.err !== null && tx.meta.err !== undefined)) return null;
  const { intent } = f.item;
  const requestorAta = await associatedTokenAddress(intent.requestor, intent.tokenAddress);
  return netCredit(tx, intent.tokenAddress, requestorAta) >= intent.amountBaseUnits;
}

/** Those whose blockhash can no longer be processed, as this node's finalized bank says. */
async function expiredOnes(node: RpcPool, pending: Followed[]): Promise<Set<Followed>> {
  const out = new Set<Followed>();
  const byHeight = pending.filter((f) => f.facts.lastValidBlockHeight !== null);
  if (byHeight.length > 0) {
    // Built messages carry their exact last valid height: one finalized height decides them all.
    const floor = Math.min(...byHeight.map((f) => f.facts.hashSlot ?? 0));
    const height = await unlessRefused(() => getBlockHeight(node, 'finalized', floor > 0 ? floor : undefined));
    if (height !== null) for (const f of byHeight) if (height > f.facts.lastValidBlockHeight!) out.add(f);
  }
  // Messages PayForge did not build: the hash itself, at finalized, once that bank has passed the
  // slot the hash was known at (before it, "not valid" only means "not there yet").
  const byHash = new Map<string, Followed[]>();
  for (const f of pending) {
    if (f.facts.lastValidBlockHeight !== null || f.facts.hashSlot === null) continue;
    const key = `${f.facts.blockhash} ${f.facts.hashSlot}`;
    byHash.set(key, [...(byHash.get(key) ?? []), f]);
  }
  for (const group of byHash.values()) {
    const { blockhash, hashSlot } = group[0]!.facts;
    const r = await unlessRefused(() => isBlockhashValid(node, blockhash!, 'finalized', hashSlot!));
    if (r !== null && !r.valid) for (const f of group) out.add(f);
  }
  return out;
}

/** A JSON-RPC refusal (minContextSlot not reached, method not served) decides nothing: null. */
async function unlessRefused<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof RpcCallError) return null;
    throw e;
  }
}

/** Statuses by signature in batches of 256, and the lowest tip slot among the answers. */
async function statuses(node: RpcPool, items: Followed[], searchTransactionHistory: boolean) {
  const unique = [...new Set(items.map((f) => f.item.txSignature))];
  const bySignature = new Map<string, RpcSignatureStatus | null>();
  let tip = Number.MAX_SAFE_INTEGER;
  for (let i = 0; i < unique.length; i += MAX_SIGNATURES_PER_STATUS_CALL) {
    const batch = unique.slice(i, i + MAX_SIGNATURES_PER_STATUS_CALL);
    const r = await getSignatureStatusesAt(node, batch, searchTransactionHistory);
    tip = Math.min(tip, r.slot);
    batch.forEach((sig, k) => bySignature.set(sig, r.value[k] ?? null));
  }
  return { bySignature, tip };
}
