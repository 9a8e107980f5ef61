// The facts the Solana watcher decides on, stored with the intent at submit (watchData). Older
// rows may lack the slots; every missing fact makes a verdict harder to reach, never easier.
import { BLOCKHASH_VALIDITY_BLOCKS } from './programs';

/**
 * Slots a blockhash can span while valid: 150 blocks plus room for skipped slots. Bounds where a
 * transaction can land from the slot its blockhash is known at, in either direction.
 */
export const HASH_WINDOW_SLOTS = BLOCKHASH_VALIDITY_BLOCKS * 2;

/** Persisted with the intent (JSON-safe). */
export interface SolanaWatchData {
  /** The message's recent blockhash; absent for a transaction known only by a detector's report. */
  blockhash?: string | null;
  /** Built messages: the exact last block height that can process them (from getLatestBlockhash). */
  lastValidBlockHeight?: number;
  /**
   * A slot by which the blockhash existed. A node whose finalized bank has reached it and no
   * longer accepts the hash never will again (the message PayForge did not build: isBlockhashValid).
   */
  hashSlot?: number;
  /** Earliest slot the transaction can have landed at: a history search must reach back to it. */
  historyFromSlot?: number;
  /** Where it was seen landed (submit by signature, detection). */
  slot?: number;
}

export interface WatchFacts {
  blockhash: string | null;
  lastValidBlockHeight: number | null;
  hashSlot: number | null;
  /** 0 when unknown: only a node with the whole history can then speak for a miss. */
  historyFromSlot: number;
  landedSlot: number | null;
}

const slotOr = (v: unknown, fallback: number | null): number | null => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : fallback);

export function readWatchData(d: Record<string, unknown>): WatchFacts {
  const landedSlot = slotOr(d.slot, null);
  return {
    blockhash: typeof d.blockhash === 'string' && d.blockhash.length > 0 ? d.blockhash : null,
    lastValidBlockHeight: slotOr(d.lastValidBlockHeight, null),
    hashSlot: slotOr(d.hashSlot, landedSlot),
    historyFromSlot: slotOr(d.historyFromSlot, landedSlot === null ? 0 : Math.max(0, landedSlot - HASH_WINDOW_SLOTS)) ?? 0,
    landedSlot,
  };
}
