// fetchSubmitted: a transaction the payer's wallet sent itself, read by signature from ONE node
// (status with history search, then getTransaction) and checked to pay the intent exactly by what
// moved: the requestor's token account for the mint credited exactly the amount, net, and token
// accounts owned by the fee payer (the signer) debited at least that much (contract 14 "paid").
import { getBase58Encoder } from '@solana/kit';
import { AppError, invalidParam } from '../../domain/errors';
import type { RpcPool } from '../../rpc/types';
import type { ChainIntent, FetchedSubmission, Network } from '../types';
import { associatedTokenAddress } from './ata';
import { accountKeys, tokenMovements } from './movement';
import { getSignatureStatuses, getTransaction, type RpcTransaction } from './rpc';

interface Difference {
  field: string;
  expected: unknown;
  actual: unknown;
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
  const got = await getTransaction(rpc, txSignature, 'confirmed');
  if (!got?.meta) throw notFound();

  const feePayer = accountKeys(got)[0] ?? '';
  const mismatch = (differences: Difference[]) =>
    new AppError('transaction.mismatch', `This transaction does not pay intent ${intent.id}: ${differences.map((d) => d.field).join(', ')} differ`, {
      param: 'txSignature',
      details: { intent_id: intent.id, differences },
    });
  if (intent.fulfiller !== null && feePayer !== intent.fulfiller) {
    throw mismatch([{ field: 'feePayer', expected: intent.fulfiller, actual: feePayer }]);
  }
  const failed = got.meta.err !== null && got.meta.err !== undefined;
  if (!failed) {
    const requestorAta = await associatedTokenAddress(intent.requestor, intent.tokenAddress);
    const problems = findMovement(got, intent, feePayer, requestorAta);
    if (problems.length > 0) throw mismatch(problems);
  }
  return {
    txSignature,
    signer: feePayer,
    watchData: { slot: got.slot, blockhash: got.transaction.message.recentBlockhash ?? null },
    commitment: failed ? 'failed' : status.confirmationStatus === 'finalized' ? 'finalized' : 'confirmed',
  };
}

/** What the token balances say moved, against what the intent asks for; empty = it pays. */
function findMovement(tx: RpcTransaction, intent: ChainIntent, feePayer: string, requestorAta: string): Difference[] {
  let credited = 0n;
  let debitedFromSigner = 0n;
  for (const m of tokenMovements(tx, intent.tokenAddress)) {
    if (m.account === requestorAta) credited += m.delta;
    else if (m.owner === feePayer && m.delta < 0n) debitedFromSigner -= m.delta;
  }
  const out: Difference[] = [];
  if (credited !== intent.amountBaseUnits) out.push({ field: 'amount', expected: intent.amountBaseUnits.toString(), actual: credited.toString() });
  if (debitedFromSigner < intent.amountBaseUnits) {
    out.push({ field: 'source', expected: `${intent.amountBaseUnits} from token accounts of ${feePayer}`, actual: debitedFromSigner.toString() });
  }
  return out;
}
