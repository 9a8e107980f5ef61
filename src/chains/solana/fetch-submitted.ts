// fetchSubmitted: a transaction the payer's wallet sent itself, read by signature from ONE node
// (status with history search, then getTransaction) and checked to pay the intent exactly: the
// message's instructions as for signed bytes, and the requestor's token account credited net.
import { getBase58Encoder } from '@solana/kit';
import { AppError, invalidParam } from '../../domain/errors';
import type { RpcPool } from '../../rpc/types';
import type { ChainIntent, FetchedSubmission, Network } from '../types';
import { associatedTokenAddress } from './ata';
import { decodeWireTransaction } from './decode';
import { findPaymentProblems, type Difference } from './payment-check';
import { getSignatureStatuses } from './rpc';

interface TokenBalance {
  accountIndex: number;
  mint: string;
  uiTokenAmount: { amount: string };
}

interface RpcTransaction {
  slot: number;
  transaction: [string, 'base64'];
  meta: { err: unknown; preTokenBalances?: TokenBalance[] | null; postTokenBalances?: TokenBalance[] | null } | null;
}

function isSignature(s: string): boolean {
  try {
    return getBase58Encoder().encode(s).length === 64;
  } catch {
    return false;
  }
}

export async function fetchSubmitted(network: Network, pool: RpcPool, intent: ChainIntent, txSignature: string): Promise<FetchedSubmission> {
  if (!isSignature(txSignature)) throw invalidParam('txSignature', 'txSignature must be a base58 Solana transaction signature (64 bytes).');
  const notFound = () =>
    new AppError('transaction.not_found', 'No node knows this transaction at confirmed commitment yet; retry shortly.', {
      param: 'txSignature',
      details: { tx_signature: txSignature, chain: network.chain },
    });
  // One node for every read behind this answer (contract 14).
  const rpc = pool.pin();
  const [status] = await getSignatureStatuses(rpc, [txSignature], true);
  if (!status || status.confirmationStatus === null || status.confirmationStatus === 'processed') throw notFound();
  const got = await rpc.call<RpcTransaction | null>('getTransaction', [
    txSignature,
    { encoding: 'base64', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
  ]);
  if (!got) throw notFound();

  const { message } = decodeWireTransaction(got.transaction[0]);
  const feePayer = message.staticAccounts[0]!;
  const mismatch = (differences: Difference[]) =>
    new AppError('transaction.mismatch', `This transaction does not pay intent ${intent.id}: ${differences.map((d) => d.field).join(', ')} differ`, {
      param: 'txSignature',
      details: { intent_id: intent.id, differences },
    });
  if (intent.fulfiller !== null && feePayer !== intent.fulfiller) {
    throw mismatch([{ field: 'feePayer', expected: intent.fulfiller, actual: feePayer }]);
  }
  const requestorAta = await associatedTokenAddress(intent.requestor, intent.tokenAddress);
  const problems = findPaymentProblems(message, intent, feePayer, requestorAta);
  if (problems.length > 0) throw mismatch(problems);

  const failed = got.meta?.err !== null && got.meta?.err !== undefined;
  if (!failed) {
    // Paid means money moved: the requestor's account for this mint gained the amount, net.
    const index = message.staticAccounts.indexOf(requestorAta as never);
    const balance = (list: TokenBalance[] | null | undefined) =>
      BigInt(list?.find((b) => b.accountIndex === index && b.mint === intent.tokenAddress)?.uiTokenAmount.amount ?? '0');
    const credited = balance(got.meta?.postTokenBalances) - balance(got.meta?.preTokenBalances);
    if (credited < intent.amountBaseUnits) {
      throw mismatch([{ field: 'credit', expected: intent.amountBaseUnits.toString(), actual: credited.toString() }]);
    }
  }
  return {
    txSignature,
    signer: feePayer,
    watchData: { slot: got.slot, blockhash: message.lifetimeToken },
    commitment: failed ? 'failed' : status.confirmationStatus === 'finalized' ? 'finalized' : 'confirmed',
  };
}
