// fetchSubmitted: a transaction the payer's wallet sent itself, read by hash from ONE node
// (transaction, receipt, head and finalized tag in one batch) and checked to pay the intent exactly.
import { getAddress, type Hex } from 'viem';
import { AppError, invalidParam } from '../../domain/errors';
import type { RpcPool } from '../../rpc/types';
import type { ChainIntent, FetchedSubmission, Network } from '../types';
import { readReceipt, type RpcReceipt } from './receipt';
import { batch, hexToBig, hexToNum } from './rpc';
import { transferMismatches } from './transfer';

interface RpcTransaction {
  hash: string;
  from: string;
  to: string | null;
  input: Hex;
  value: string;
  nonce: string;
  chainId?: string;
  blockNumber: string | null;
}

const HASH_RE = /^0x[0-9a-fA-F]{64}$/;

export async function fetchSubmitted(network: Network, pool: RpcPool, intent: ChainIntent, txSignature: string): Promise<FetchedSubmission> {
  if (!HASH_RE.test(txSignature)) throw invalidParam('txSignature', 'txSignature must be an EVM transaction hash: 0x and 64 hex digits.');
  const hash = txSignature.toLowerCase();
  // One node for every read behind this answer (contract 14).
  const rpc = pool.pin();
  const [txO, receiptO, headO, finO] = await batch(rpc, [
    { method: 'eth_getTransactionByHash', params: [hash] },
    { method: 'eth_getTransactionReceipt', params: [hash] },
    { method: 'eth_blockNumber', params: [] },
    { method: 'eth_getBlockByNumber', params: ['finalized', false] },
  ]);
  if (!txO!.ok || !headO!.ok) {
    throw new AppError('rpc.unavailable', `RPC upstream for ${network.chain} could not read the transaction`, {
      details: { chain: network.chain, retry_after: 2 },
    });
  }
  const tx = txO!.result as RpcTransaction | null;
  if (!tx) {
    throw new AppError('transaction.not_found', 'No node knows this transaction yet; retry shortly.', {
      param: 'txSignature',
      details: { tx_signature: hash, chain: network.chain },
    });
  }
  const signer = getAddress(tx.from);
  const mismatches = transferMismatches(network, intent, {
    chainId: tx.chainId === undefined ? undefined : hexToNum(tx.chainId),
    to: tx.to,
    data: tx.input,
    value: hexToBig(tx.value),
    signer,
  });
  if (mismatches.length > 0) {
    throw new AppError('transaction.mismatch', `This transaction does not pay the intent: ${mismatches.map((m) => m.field).join(', ')} differ`, {
      param: 'txSignature',
      details: { intent_id: intent.id, field: mismatches[0]!.field, expected: mismatches[0]!.expected, actual: mismatches[0]!.actual, mismatches, differences: mismatches },
    });
  }
  const head = hexToNum(headO!.result);
  const finalized = finO!.ok && finO!.result ? hexToNum((finO!.result as { number: string }).number) : null;
  const receipt = receiptO!.ok ? (receiptO!.result as RpcReceipt | null) : null;
  let commitment: FetchedSubmission['commitment'] = 'pending';
  let sinceBlock = head;
  if (receipt) {
    const v = readReceipt(receipt, intent);
    sinceBlock = Math.min(head, v.blockNumber - 1);
    if (v.kind !== 'paid') commitment = 'failed';
    else if (finalized !== null && v.blockNumber <= finalized) commitment = 'finalized';
    else if (head - v.blockNumber + 1 >= network.confirmations) commitment = 'confirmed';
  }
  return {
    txSignature: hash,
    signer,
    watchData: { from: signer, nonce: hexToNum(tx.nonce), sinceBlock },
    commitment,
  };
}
