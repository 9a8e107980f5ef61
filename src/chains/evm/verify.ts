// verifySubmission: the signed bytes must pay this intent (chain, token, recipient, exact amount)
// and be signed by its fulfiller; anything else is transaction.mismatch with what differs.
import { AppError } from '../../domain/errors';
import type { RpcPool } from '../../rpc/types';
import type { ChainIntent, Network, VerifiedSubmission } from '../types';
import { decodeSignedTx, hexToBase64 } from './codec';
import { hexToNum } from './rpc';
import { transferMismatches } from './transfer';

export type VerifyInput = { network: Network; rpc: RpcPool; intent: ChainIntent; signedTransactionBase64: string };

export async function verifyTransfer({ network, rpc, intent, signedTransactionBase64 }: VerifyInput): Promise<VerifiedSubmission> {
  const tx = await decodeSignedTx(signedTransactionBase64);
  const mismatches = transferMismatches(network, intent, tx);
  if (mismatches.length > 0) {
    const first = mismatches[0]!;
    throw new AppError('transaction.mismatch', `Signed transaction does not pay this intent: ${mismatches.map((m) => m.field).join(', ')} differ`, {
      details: { intent_id: intent.id, field: first.field, expected: first.expected, actual: first.actual, mismatches, differences: mismatches },
    });
  }
  // The head at submit bounds the watcher's search for whichever transaction later takes the nonce.
  const sinceBlock = hexToNum(await rpc.call('eth_blockNumber'));
  return {
    txSignature: tx.hash,
    signer: tx.signer,
    signedTransaction: hexToBase64(tx.hex),
    watchData: { from: tx.signer, nonce: tx.nonce, sinceBlock },
  };
}
