// verifySubmission: a signed wire transaction is accepted only if every required signature is
// valid and it pays this intent exactly (the built message, or an equivalent one a wallet rebuilt).
import { address, getBase64Decoder, getPublicKeyFromAddress, verifySignature } from '@solana/kit';
import { AppError } from '../../domain/errors';
import type { RpcPool } from '../../rpc/types';
import type { ChainIntent, Network, VerifiedSubmission } from '../types';
import { associatedTokenAddress } from './ata';
import type { SolanaBuildData } from './build';
import { decodeWireTransaction, type DecodedTransaction } from './decode';
import { findPaymentProblems, type Difference } from './payment-check';
import { BLOCKHASH_VALIDITY_BLOCKS } from './programs';
import { getBlockHeight } from './rpc';

/** Persisted with the intent; the watcher needs lastValidBlockHeight to tell "dropped" from "slow". */
export interface SolanaWatchData {
  blockhash: string;
  lastValidBlockHeight: number;
}

export async function verifySubmission(
  network: Network,
  rpc: RpcPool,
  intent: ChainIntent,
  signedTransactionBase64: string,
  buildData: Record<string, unknown> | null,
): Promise<VerifiedSubmission> {
  const decoded = decodeWireTransaction(signedTransactionBase64);
  const { message } = decoded;
  const feePayer = message.staticAccounts[0]!;
  const mismatch = (differences: Difference[]) =>
    new AppError('transaction.mismatch', `The signed transaction does not pay intent ${intent.id}: ${differences.map((d) => d.field).join(', ')} differ`, {
      details: { intent_id: intent.id, differences },
    });

  if (intent.fulfiller !== null && feePayer !== intent.fulfiller) {
    throw mismatch([{ field: 'feePayer', expected: intent.fulfiller, actual: feePayer }]);
  }
  const badSignatures = await findSignatureProblems(decoded);
  if (badSignatures.length > 0) throw mismatch(badSignatures);

  const built = buildData as Partial<SolanaBuildData> | null;
  const messageBase64 = getBase64Decoder().decode(decoded.transaction.messageBytes);
  if (built?.message !== messageBase64) {
    const requestorAta = await associatedTokenAddress(intent.requestor, intent.tokenAddress);
    const problems = findPaymentProblems(message, intent, feePayer, requestorAta);
    if (problems.length > 0) throw mismatch(problems);
  }

  const watchData: SolanaWatchData = {
    blockhash: message.lifetimeToken,
    lastValidBlockHeight:
      built?.blockhash === message.lifetimeToken && typeof built.lastValidBlockHeight === 'number'
        ? built.lastValidBlockHeight
        : // A blockhash the node accepts is at most as new as the current block, so its window ends
          // no later than this: declaring "dropped" after it can only be late, never early.
          (await getBlockHeight(rpc, 'processed')) + BLOCKHASH_VALIDITY_BLOCKS,
  };
  return {
    txSignature: decoded.signature!,
    signer: feePayer,
    signedTransaction: signedTransactionBase64,
    watchData: { ...watchData },
  };
}

/** Every account the message marks as a signer must carry a valid ed25519 signature of the message. */
async function findSignatureProblems(decoded: DecodedTransaction): Promise<Difference[]> {
  const { message, transaction } = decoded;
  const signers = message.staticAccounts.slice(0, message.header.numSignerAccounts);
  const out: Difference[] = [];
  for (const signer of signers) {
    const sig = transaction.signatures[signer];
    if (!sig) {
      out.push({ field: 'signatures', expected: `a signature by ${signer}`, actual: null });
      continue;
    }
    const key = await getPublicKeyFromAddress(address(signer));
    if (!(await verifySignature(key, sig, transaction.messageBytes))) {
      out.push({ field: 'signatures', expected: `a valid signature by ${signer}`, actual: 'invalid signature' });
    }
  }
  return out;
}
