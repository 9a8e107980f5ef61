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
import { getSignatureStatuses, getTransaction, type RpcSignatureStatus, type RpcTransaction } from './rpc';

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
  const found = await readFromOneNode(pool, txSignature);
  if (!found) throw notFound();
  const { status, got } = found;

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

/**
 * The status and the transaction, both from ONE node (contract 14), asking each upstream in turn
 * until one has it at confirmed or better (a node whose ledger starts later may not): null when
 * every node answered and none has it; otherwise the last node's trouble is thrown.
 */
async function readFromOneNode(pool: RpcPool, txSignature: string): Promise<{ status: RpcSignatureStatus; got: RpcTransaction & { meta: object } } | null> {
  const nodes = pool.pinEach?.() ?? [];
  let trouble: unknown = null;
  for (const node of nodes.length > 0 ? nodes : [pool.pin()]) {
    try {
      const [status] = await getSignatureStatuses(node, [txSignature], true);
      if (!status || status.confirmationStatus === null || status.confirmationStatus === 'processed') continue;
      const got = await getTransaction(node, txSignature, 'confirmed');
      if (got?.meta) return { status, got: got as RpcTransaction & { meta: object } };
    } catch (e) {
      trouble = e;
    }
  }
  // A node that failed to answer may be the one that has it: "not found" would be a guess.
  if (trouble !== null) throw trouble;
  return null;
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
