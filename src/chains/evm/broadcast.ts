// broadcast: eth_sendRawTransaction through the pool. Idempotent: a node that already has the
// transaction (in its pool or mined) is success; any other refusal is transaction.rejected.
import type { Hex } from 'viem';
import { AppError } from '../../domain/errors';
import { RpcCallError, type RpcPool } from '../../rpc/types';
import type { VerifiedSubmission } from '../types';
import { base64ToHex } from './codec';

// Wordings of geth, reth, erigon, anvil and nethermind for "I have this one already".
const ALREADY_KNOWN = /already known|already imported|known transaction|alreadyknown|already in (the )?(tx)?pool/i;

export type SendResult = 'sent' | 'already_known';

/** Send raw bytes; returns how the node took them, throws RpcCallError on refusal. */
export async function sendRaw(rpc: RpcPool, hex: Hex): Promise<SendResult> {
  try {
    await rpc.call('eth_sendRawTransaction', [hex]);
    return 'sent';
  } catch (e) {
    if (e instanceof RpcCallError && ALREADY_KNOWN.test(e.message)) return 'already_known';
    throw e;
  }
}

export async function broadcastSigned(rpc: RpcPool, submission: VerifiedSubmission): Promise<void> {
  const hex = base64ToHex(submission.signedTransaction);
  try {
    await sendRaw(rpc, hex);
  } catch (e) {
    if (!(e instanceof RpcCallError)) throw e; // rpc.unavailable and bugs pass through
    // "nonce too low" for our own, already mined transaction is a repeat, not a refusal.
    const known = await rpc.call('eth_getTransactionByHash', [submission.txSignature]).catch(() => null);
    if (known) return;
    throw new AppError('transaction.rejected', `The node rejected the transaction: ${e.message}`, {
      details: { txSignature: submission.txSignature, rpc_code: e.code, rpc_message: e.message, rpc_data: e.data ?? null },
      cause: e,
    });
  }
}
