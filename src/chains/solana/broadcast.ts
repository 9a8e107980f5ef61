// broadcast: send the exact signed bytes once, with preflight, so a transaction the chain would
// refuse (bad blockhash, no funds, failing program) is reported at submit instead of later.
// Same bytes, same answer (contract 14): bytes the chain already has are never "rejected", even
// once their blockhash expired and the node's preflight refuses them for it.
import { AppError } from '../../domain/errors';
import { RpcCallError, type RpcPool } from '../../rpc/types';
import type { Network, VerifiedSubmission } from '../types';
import { firstAvailableSlot, getSignatureStatuses, sendTransaction } from './rpc';
import { readWatchData } from './watch-data';

export async function broadcast(network: Network, rpc: RpcPool, submission: VerifiedSubmission): Promise<void> {
  try {
    await sendTransaction(rpc, submission.signedTransaction, { skipPreflight: false });
  } catch (e) {
    if (!(e instanceof RpcCallError)) throw e; // AppError rpc.unavailable passes through unchanged
    const data = (e.data ?? {}) as { err?: unknown; logs?: unknown };
    // The same bytes already landed (a duplicate submit or our own rebroadcast won): nothing to do.
    if (data.err === 'AlreadyProcessed') return;
    // A bank checks the blockhash before its status cache: bytes that landed and whose hash then
    // expired are refused this way. Any other refusal means the hash is valid and the status cache
    // (which spans the hash's whole life) does not have them: they never landed.
    if (data.err === 'BlockhashNotFound' && (await landedOrUnknown(rpc, submission))) return;
    throw new AppError('transaction.rejected', `The Solana node refused the transaction: ${e.message}`, {
      details: {
        chain: network.chain,
        txSignature: submission.txSignature,
        rpc_code: e.code,
        rpc_message: e.message,
        err: data.err ?? null,
        logs: Array.isArray(data.logs) ? data.logs.slice(-20) : null,
      },
      cause: e,
    });
  }
}

/**
 * A history search for the signature, node by node, until one finds it (landed: the submit
 * succeeds) or one whose ledger reaches back to where it could have landed does not (never
 * landed: refused). When no node can tell, it counts as sent: the watcher decides (contract 7).
 */
async function landedOrUnknown(rpc: RpcPool, submission: VerifiedSubmission): Promise<boolean> {
  const { historyFromSlot } = readWatchData(submission.watchData);
  for (const node of rpc.pinEach?.() ?? [rpc.pin()]) {
    try {
      const [status] = await getSignatureStatuses(node, [submission.txSignature], true);
      if (status) return true;
      const from = await firstAvailableSlot(node);
      if (from !== null && from <= historyFromSlot) return false;
    } catch {
      // this node cannot answer: ask the next
    }
  }
  return true;
}
