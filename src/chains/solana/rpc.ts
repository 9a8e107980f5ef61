// Typed wrappers for the Solana JSON-RPC methods PayForge uses, called through the shared RpcPool
// (failover, timeouts, breaker). Kept to the fields we read; numbers stay JS numbers because
// block heights, lamport fees and rent are far below 2^53.
import { RpcCallError, type RpcPool } from '../../rpc/types';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

interface WithContext<T> {
  context: { slot: number };
  value: T;
}

export interface RpcAccount {
  data: [string, 'base64'];
  executable: boolean;
  lamports: number;
  owner: string;
  space?: number;
}

/** A transaction error as the RPC encodes it, e.g. {"InstructionError":[3,{"Custom":1}]} or "AccountNotFound". */
export type RpcTransactionError = string | Record<string, unknown>;

export interface RpcSignatureStatus {
  slot: number;
  confirmations: number | null;
  err: RpcTransactionError | null;
  confirmationStatus: Commitment | null;
}

/** The latest blockhash and the slot of the bank it was read from (the hash existed by then). */
export async function getLatestBlockhash(
  rpc: RpcPool,
  commitment: Commitment,
): Promise<{ blockhash: string; lastValidBlockHeight: number; slot: number }> {
  const r = await rpc.call<WithContext<{ blockhash: string; lastValidBlockHeight: number }>>('getLatestBlockhash', [
    { commitment },
  ]);
  return { ...r.value, slot: r.context.slot };
}

/**
 * Whether the bank at `commitment` still accepts this blockhash, and that bank's slot. With
 * minContextSlot the node refuses (-32016, see isContextSlotRefusal) while that bank is below it.
 */
export async function isBlockhashValid(
  rpc: RpcPool,
  blockhash: string,
  commitment: Commitment,
  minContextSlot?: number,
): Promise<{ valid: boolean; slot: number }> {
  const r = await rpc.call<WithContext<boolean>>('isBlockhashValid', [
    blockhash,
    { commitment, ...(minContextSlot === undefined ? {} : { minContextSlot }) },
  ]);
  return { valid: r.value, slot: r.context.slot };
}

/** JSON-RPC -32016: the node's bank has not reached the minContextSlot asked for. */
export const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;

export async function getMultipleAccounts(
  rpc: RpcPool,
  addresses: string[],
  commitment: Commitment,
): Promise<Array<RpcAccount | null>> {
  const r = await rpc.call<WithContext<Array<RpcAccount | null>>>('getMultipleAccounts', [
    addresses,
    { encoding: 'base64', commitment },
  ]);
  return r.value;
}

export async function getMinimumBalanceForRentExemption(rpc: RpcPool, size: number): Promise<number> {
  return rpc.call<number>('getMinimumBalanceForRentExemption', [size]);
}

/** null when the node no longer (or not yet) knows the message's blockhash. */
export async function getFeeForMessage(rpc: RpcPool, messageBase64: string, commitment: Commitment): Promise<number | null> {
  const r = await rpc.call<WithContext<number | null>>('getFeeForMessage', [messageBase64, { commitment }]);
  return r.value;
}

export async function getBlockHeight(rpc: RpcPool, commitment: Commitment, minContextSlot?: number): Promise<number> {
  return rpc.call<number>('getBlockHeight', [{ commitment, ...(minContextSlot === undefined ? {} : { minContextSlot }) }]);
}

/** Slot where the node's history begins; null when it serves neither method (then it has no history to speak of). */
export async function firstAvailableSlot(rpc: RpcPool): Promise<number | null> {
  for (const method of ['getFirstAvailableBlock', 'minimumLedgerSlot']) {
    try {
      const v = await rpc.call<number>(method, []);
      if (Number.isSafeInteger(v) && v >= 0) return v;
    } catch (e) {
      if (!(e instanceof RpcCallError)) throw e; // transport trouble abandons the decision
    }
  }
  return null;
}

export async function getSignatureStatuses(
  rpc: RpcPool,
  signatures: string[],
  searchTransactionHistory: boolean,
): Promise<Array<RpcSignatureStatus | null>> {
  return (await getSignatureStatusesAt(rpc, signatures, searchTransactionHistory)).value;
}

/** Statuses plus the slot of the node's bank that answered (its processed tip). */
export async function getSignatureStatusesAt(
  rpc: RpcPool,
  signatures: string[],
  searchTransactionHistory: boolean,
): Promise<{ slot: number; value: Array<RpcSignatureStatus | null> }> {
  const r = await rpc.call<WithContext<Array<RpcSignatureStatus | null>>>('getSignatureStatuses', [
    signatures,
    { searchTransactionHistory },
  ]);
  return { slot: r.context.slot, value: r.value };
}

/** A landed transaction as getTransaction (json) returns it: the fields PayForge reads. */
export interface RpcTransaction {
  slot: number;
  blockTime?: number | null;
  meta: {
    err: unknown;
    preTokenBalances?: RpcTokenBalance[] | null;
    postTokenBalances?: RpcTokenBalance[] | null;
    loadedAddresses?: { writable: string[]; readonly: string[] } | null;
  } | null;
  transaction: { message: { accountKeys: string[]; recentBlockhash?: string } };
}

export interface RpcTokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

export async function getTransaction(rpc: RpcPool, signature: string, commitment: 'confirmed' | 'finalized'): Promise<RpcTransaction | null> {
  return rpc.call<RpcTransaction | null>('getTransaction', [
    signature,
    { encoding: 'json', commitment, maxSupportedTransactionVersion: 0 },
  ]);
}

/** maxRetries 0 always: PayForge rebroadcasts itself, so the node must not keep stale copies alive. */
export async function sendTransaction(
  rpc: RpcPool,
  wireBase64: string,
  opts: { skipPreflight: boolean },
): Promise<string> {
  return rpc.call<string>('sendTransaction', [
    wireBase64,
    { encoding: 'base64', skipPreflight: opts.skipPreflight, preflightCommitment: 'confirmed', maxRetries: 0 },
  ]);
}
