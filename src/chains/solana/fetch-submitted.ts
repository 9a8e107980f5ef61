// fetchSubmitted: a transaction the payer's wallet sent itself, read by signature from ONE node
// (status with history search, then getTransaction) and checked to pay the intent exactly by what
// moved: the requestor's token account for the mint credited exactly the amount, net, and token
// accounts owned by the fee payer (the signer) debited at least that much (contract 14 "paid").
import { getBase58Encoder } from '@solana/kit';
import { AppError, invalidParam } from '../../domain/errors';
import type { RpcPool } from '../../rpc/types';
import type { ChainIntent, FetchedSubmission, Network } from '../types';
import { associatedTokenAddress } from './ata';
import { getSignatureStatuses } from './rpc';

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

interface RpcTransaction {
  slot: number;
  meta: {
    err: unknown;
    preTokenBalances?: TokenBalance[] | null;
    postTokenBalances?: TokenBalance[] | null;
    loadedAddresses?: { writable: string[]; readonly: string[] } | null;
  } | null;
  transaction: { message: { accountKeys: string[]; recentBlockhash?: string } };
}

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
  const got = await rpc.call<RpcTransaction | null>('getTransaction', [
    txSignature,
    { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
  ]);
  if (!got?.meta) throw notFound();

  const keys = [...got.transaction.message.accountKeys, ...(got.meta.loadedAddresses?.writable ?? []), ...(got.meta.loadedAddresses?.readonly ?? [])];
  const feePayer = keys[0] ?? '';
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
    const problems = findMovement(got.meta.preTokenBalances ?? [], got.meta.postTokenBalances ?? [], keys, intent, feePayer, requestorAta);
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
function findMovement(pre: TokenBalance[], post: TokenBalance[], keys: string[], intent: ChainIntent, feePayer: string, requestorAta: string): Difference[] {
  const deltas = new Map<number, { owner: string | undefined; delta: bigint }>();
  const add = (list: TokenBalance[], sign: bigint) => {
    for (const b of list) {
      if (b.mint !== intent.tokenAddress) continue;
      const cur = deltas.get(b.accountIndex) ?? { owner: b.owner, delta: 0n };
      cur.delta += sign * BigInt(b.uiTokenAmount.amount);
      cur.owner ??= b.owner;
      deltas.set(b.accountIndex, cur);
    }
  };
  add(pre, -1n);
  add(post, 1n);
  let credited = 0n;
  let debitedFromSigner = 0n;
  for (const [index, d] of deltas) {
    if (keys[index] === requestorAta) credited += d.delta;
    else if (d.owner === feePayer && d.delta < 0n) debitedFromSigner -= d.delta;
  }
  const out: Difference[] = [];
  if (credited !== intent.amountBaseUnits) out.push({ field: 'amount', expected: intent.amountBaseUnits.toString(), actual: credited.toString() });
  if (debitedFromSigner < intent.amountBaseUnits) {
    out.push({ field: 'source', expected: `${intent.amountBaseUnits} from token accounts of ${feePayer}`, actual: debitedFromSigner.toString() });
  }
  return out;
}
