// verifySubmission: a signed wire transaction is accepted only if every required signature is
// valid and it pays this intent exactly (the built message, or an equivalent one a wallet rebuilt).
import { address, getBase64Decoder, getPublicKeyFromAddress, verifySignature } from '@solana/kit';
import { AppError } from '../../domain/errors';
import type { RpcPool } from '../../rpc/types';
import type { ChainIntent, Network, VerifiedSubmission } from '../types';
import { associatedTokenAddress } from './ata';
import type { SolanaBuildData } from './build';
import { decodeWireTransaction, type DecodedTransaction } from './decode';
import { findPaymentProblems, transferAccounts, type Difference } from './payment-check';
import { isBlockhashValid } from './rpc';
import { findSourceProblems } from './source-check';
import { HASH_WINDOW_SLOTS, type SolanaWatchData } from './watch-data';

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

  const transfer = transferAccounts(message);
  if (transfer) {
    const problems = await findSourceProblems(rpc, intent, feePayer, transfer);
    if (problems.length > 0) throw mismatch(problems);
  }

  return {
    txSignature: decoded.signature!,
    signer: feePayer,
    signedTransaction: signedTransactionBase64,
    watchData: { ...(await watchDataOf(rpc, message.lifetimeToken, built)) },
  };
}

/** What the watcher needs to tell "dropped" from "slow" (see watch-data.ts). */
async function watchDataOf(rpc: RpcPool, blockhash: string, built: Partial<SolanaBuildData> | null): Promise<SolanaWatchData> {
  if (built?.blockhash === blockhash && typeof built.lastValidBlockHeight === 'number' && typeof built.slot === 'number') {
    // Our own blockhash: its exact last valid height, and the slot of the bank it came from
    // (the transaction can only land after it).
    return { blockhash, lastValidBlockHeight: built.lastValidBlockHeight, hashSlot: built.slot, historyFromSlot: built.slot };
  }
  // A message PayForge did not build: validity comes from the hash itself (isBlockhashValid at
  // finalized, later). A node that accepts it now knew it by this slot; one that does not (it
  // expired, or this node is behind) gives an upper bound one hash window on.
  const now = await isBlockhashValid(rpc, blockhash, 'processed');
  return {
    blockhash,
    hashSlot: now.valid ? now.slot : now.slot + HASH_WINDOW_SLOTS,
    historyFromSlot: Math.max(0, now.slot - HASH_WINDOW_SLOTS),
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
