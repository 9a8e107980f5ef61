// Typed wrappers for the Solana JSON-RPC methods PayForge uses, called through the shared RpcPool
// (failover, timeouts, breaker). Kept to the fields we read; numbers stay JS numbers because
// block heights, lamport fees and rent are far below 2^53.
import type { RpcPool } from '../../rpc/types';

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

export async function getLatestBlockhash(
  rpc: RpcPool,
  commitment: Commitment,
): Promise<{ blockhash: string; lastValidBlockHeight: number }> {
  const r = await rpc.call<WithContext<{ blockhash: string; lastValidBlockHeight: number }>>('getLatestBlockhash', [
    { commitment },
  ]);
  return r.value;
}

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

export async function getBlockHeight(rpc: RpcPool, commitment: Commitment): Promise<number> {
  return rpc.call<number>('getBlockHeight', [{ commitment }]);
}

export async function getSignatureStatuses(
  rpc: RpcPool,
  signatures: string[],
  searchTransactionHistory: boolean,
): Promise<Array<RpcSignatureStatus | null>> {
  const r = await rpc.call<WithContext<Array<RpcSignatureStatus | null>>>('getSignatureStatuses', [
    signatures,
    { searchTransactionHistory },
  ]);
  return r.value;
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
