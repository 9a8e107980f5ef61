// The chain adapter contract: what the intent verbs and the actor runtime need from a chain
// family. solana/ and evm/ implement it; nothing outside those folders imports a chain SDK.

import type { ChainFamily, FailureReason, Mode } from '../domain/intent';
import type { RpcPool } from '../rpc/types';

export interface TokenConfig {
  /** ERC-20 / TIP-20 contract address, or SPL mint. */
  address: string;
  decimals: number;
}

/** One network, as resolved from the built-in table plus the config file. */
export interface Network {
  /** CAIP-2 id, e.g. "eip155:84532" or "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1". */
  chain: string;
  family: ChainFamily;
  mode: Mode;
  name: string;
  /** EVM fee model: 'op-stack' adds the L1 data fee (Base); 'tempo' pays fees in the TIP-20 token. */
  evmFeeModel?: 'op-stack' | 'tempo' | 'plain';
  /** EVM chain id (numeric part of the CAIP-2 reference). */
  evmChainId?: number;
  rpc: string[];
  confirmations: number;
  pollIntervalMs: number;
  /** Solana: rebroadcast period while pending; EVM: same idea while the nonce is unused. */
  rebroadcastIntervalMs: number;
  tokens: Record<string, TokenConfig>;
}

/** What an adapter needs to know about an intent. */
export interface ChainIntent {
  id: string;
  chain: string;
  token: string;
  tokenAddress: string;
  decimals: number;
  amountBaseUnits: bigint;
  requestor: string;
  fulfiller: string | null;
  /** Solana Pay reference the built transfer carries (read-only, non-signer); absent on EVM. */
  solanaReference?: string | null;
}

export interface BuiltTransaction {
  /** base64 of the unsigned transaction (v0 message, or 0x02||rlp unsigned EIP-1559). */
  blob: string;
  format: 'solana_v0_message' | 'evm_eip1559';
  ataRentLamports: number | null;
  estimatedFeeLamports: number | null;
  estimatedFeeUsdc: string | null;
  estimatedFeeEth: string | null;
}

export interface BuildResult {
  transaction: BuiltTransaction;
  /** Solana: rent of the requestor's token account to be created (0 when it exists); EVM: null. */
  ataRentLamports: number | null;
  /**
   * JSON-safe facts to remember about this build, stored with the intent and handed back to
   * verifySubmission (e.g. Solana: { blockhash, lastValidBlockHeight, message }).
   */
  buildData: Record<string, unknown>;
}

/** A signed transaction that was decoded and found to pay the intent. */
export interface VerifiedSubmission {
  /** Solana base58 signature, or EVM 0x transaction hash. */
  txSignature: string;
  /** The fee payer / sender recovered from the signature. */
  signer: string;
  /** base64 of the exact signed bytes: broadcast and rebroadcast as they are. */
  signedTransaction: string;
  /** JSON-safe watch facts persisted with the intent (Solana: lastValidBlockHeight; EVM: from, nonce). */
  watchData: Record<string, unknown>;
}

/** A transaction read from the chain by its id (submit by txSignature) that pays the intent. */
export interface FetchedSubmission {
  txSignature: string;
  /** The fee payer / sender. */
  signer: string;
  /** JSON-safe watch facts (as VerifiedSubmission.watchData). */
  watchData: Record<string, unknown>;
  /** Where the node has it now; 'failed' = it landed and failed (it pays nothing). */
  commitment: 'pending' | 'confirmed' | 'finalized' | 'failed';
}

/**
 * Which transaction a report is about. `txSignature`: the one the verdict is on; `follows`: the
 * transaction of the WatchItem it was decided for (the row's txSignature when handed to watch()).
 * They differ only for an EVM repriced copy that took the followed transaction's nonce (a
 * replacement of it). The runtime applies a report only while the row still follows one of the
 * two (contract 14, the row is the only state): a verdict decided before an await, or queued while
 * its write failed, never lands on a transaction the intent moved to since.
 */
interface About {
  intentId: string;
  txSignature: string;
  follows: string;
}

/** What the watcher reports about one intent. The runtime ignores reports that do not apply. */
export type ChainObservation =
  /** watchData: facts kept on the row with the verdict (EVM: seenBlock, where the receipt was read). */
  | (About & { type: 'confirmed'; watchData?: Record<string, unknown> })
  | (About & { type: 'finalized' })
  | (About & { type: 'failed'; reason: FailureReason; message?: string })
  | (About & { type: 'dropped' })
  | (About & { type: 'reorged' });

/** One transaction the watcher follows (re-added on boot for every pending/confirmed intent). */
export interface WatchItem {
  intentId: string;
  chain: string;
  txSignature: string;
  /** The exact signed bytes to rebroadcast; null when PayForge knows the transaction only by id
   * (submit by txSignature, detection): follow it, never rebroadcast. */
  signedTransaction: string | null;
  watchData: Record<string, unknown>;
  /** 'pending': look for confirmed/failed/dropped; 'confirmed': look for finalized or a reorg. */
  stage: 'pending' | 'confirmed';
  /** The intent, for EVM replacement checks (same transfer repriced counts as paid). */
  intent: ChainIntent;
}

export interface Watcher {
  /** Start or update following one transaction. Idempotent: re-adding replaces. */
  watch(item: WatchItem): void;
  unwatch(intentId: string): void;
  stop(): Promise<void>;
}

export interface ChainAdapter {
  family: ChainFamily;
  /** Pure syntax check used at create time (base58 32-byte key, or 0x + 40 hex). */
  isValidAddress(address: string): boolean;
  /** Canonical form used for storage and comparison (EVM: EIP-55 checksum; Solana: as is). */
  normalizeAddress(address: string): string;
  /** Build the unsigned transaction. Throws AppError (token.unsupported_program, rpc.unavailable ...). */
  build(network: Network, rpc: RpcPool, intent: ChainIntent, fulfiller: string): Promise<BuildResult>;
  /**
   * The intent's earlier build (from its stored buildData) when it can still land and was built
   * for the same fulfiller (Solana: blockhash still valid; EVM: nonce unused), else null: build is
   * idempotent, so a second independently valid payment is never handed out (contract 14).
   */
  reuseBuild?(
    network: Network,
    rpc: RpcPool,
    intent: ChainIntent,
    fulfiller: string,
    buildData: Record<string, unknown> | null,
  ): Promise<BuildResult | null>;
  /**
   * Decode the base64 signed transaction and check it pays this intent.
   * Throws AppError request.invalid_param (param signedTransaction) for undecodable input,
   * transaction.mismatch when it does not pay the intent or the signer is not the fulfiller.
   */
  verifySubmission(
    network: Network,
    rpc: RpcPool,
    intent: ChainIntent,
    signedTransactionBase64: string,
    buildData: Record<string, unknown> | null,
  ): Promise<VerifiedSubmission>;
  /**
   * Read a transaction by id from ONE node and check it pays this intent exactly (as
   * verifySubmission). Throws request.invalid_param (param txSignature) for a malformed id,
   * transaction.not_found when the node does not know it, transaction.mismatch, rpc.unavailable.
   */
  fetchSubmitted(network: Network, rpc: RpcPool, intent: ChainIntent, txSignature: string): Promise<FetchedSubmission>;
  /** Send the signed bytes. Throws AppError transaction.rejected (RPC refused it) or rpc.unavailable. */
  broadcast(network: Network, rpc: RpcPool, submission: VerifiedSubmission): Promise<void>;
  /** One shared, batching watcher per network. */
  createWatcher(network: Network, rpc: RpcPool, report: (o: ChainObservation) => void): Watcher;
  /** One payment detector per network: finds transfers to watched requestors, whoever sent them. */
  createDetector?(network: Network, rpc: RpcPool, source: DetectionSource): Detector;
}

/**
 * A transfer found on chain that credits a watched requestor (contract section 11, shared
 * decision 5), reported by a network's detector to the one verb recordFoundTransfer.
 */
export interface FoundTransfer {
  chain: string;
  /** Solana signature or EVM transaction hash. */
  txSignature: string;
  /** ERC-20 / TIP-20 contract or SPL mint. */
  tokenAddress: string;
  /** Who paid: EVM the Transfer log's `from`; Solana the owner of the debited token account. */
  from: string;
  /** The requestor credited (wallet owner, not its token account). */
  to: string;
  /** Net credit to the requestor in this one transaction. */
  amountBaseUnits: bigint;
  /** Solana Pay references (accounts of the transaction); [] on EVM. */
  references: string[];
  /** Block time, epoch ms (1 s resolution on both families). */
  landedAt: number;
  commitment: 'confirmed' | 'finalized';
  /** Facts a watcher needs to follow it (EVM {from, nonce, sinceBlock}; Solana {slot}). */
  watchData?: Record<string, unknown>;
}

/** What a detector is told to watch, read from committed rows each poll. */
export interface DetectionSource {
  /** Distinct receiving accounts (requestor + token) of live intents and of intents closed within the look-back. */
  receivers(): Promise<Array<{ requestor: string; tokenAddress: string; since: number }>>;
  /** Solana Pay references of the same intents. */
  references(): Promise<Array<{ reference: string; requestor: string; tokenAddress: string; createdAt: number }>>;
  /** Matched transfers whose intent is not finalized yet: reported again once final. */
  unfinalized(): Promise<Array<{ txSignature: string; tokenAddress: string; from: string; to: string; amountBaseUnits: bigint }>>;
  getCursor(key: string): Promise<string | null>;
  setCursor(key: string, value: string): Promise<void>;
  /** Hand a found transfer to the matcher; resolves once written (rejects when the write failed). */
  report(t: FoundTransfer): Promise<void>;
  log(msg: string, fields: Record<string, unknown>): void;
}

export interface Detector {
  stop(): Promise<void>;
}
