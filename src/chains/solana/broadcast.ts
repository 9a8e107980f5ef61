// broadcast: send the exact signed bytes once, with preflight, so a transaction the chain would
// refuse (bad blockhash, no funds, failing program) is reported at submit instead of later.
import { AppError } from '../../domain/errors';
import { RpcCallError, type RpcPool } from '../../rpc/types';
import type { Network, VerifiedSubmission } from '../types';
import { sendTransaction } from './rpc';

export async function broadcast(network: Network, rpc: RpcPool, submission: VerifiedSubmission): Promise<void> {
  try {
    await sendTransaction(rpc, submission.signedTransaction, { skipPreflight: false });
  } catch (e) {
    if (!(e instanceof RpcCallError)) throw e; // AppError rpc.unavailable passes through unchanged
    const data = (e.data ?? {}) as { err?: unknown; logs?: unknown };
    // The same bytes already landed (a duplicate submit or our own rebroadcast won): nothing to do.
    if (data.err === 'AlreadyProcessed') return;
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
