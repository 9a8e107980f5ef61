// A token transfer composed and signed by a wallet, not by PayForge: any source, destination and
// authority (a delegate's self-transfer too), on the chain's latest blockhash, as base64 wire bytes.
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  blockhash as toBlockhash,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferCheckedInstruction } from '@solana-program/token';
import type { LocalSolana } from './local-solana';

export interface WalletTransfer {
  wire: string;
  signature: string;
  blockhash: string;
  lastValidBlockHeight: number;
  /** Slot of the bank the blockhash came from. */
  slot: number;
}

export async function walletTransfer(
  sol: LocalSolana,
  o: { signer: KeyPairSigner; source: string; destination: string; mint: string; amount: bigint; decimals?: number; reference?: string },
): Promise<WalletTransfer> {
  const latest = sol.chain.latestBlockhash('confirmed');
  const slot = sol.chain.slotAt('confirmed');
  const ix = getTransferCheckedInstruction({
    source: address(o.source),
    mint: address(o.mint),
    destination: address(o.destination),
    authority: o.signer,
    amount: o.amount,
    decimals: o.decimals ?? 6,
  });
  const reference = o.reference ? [{ address: address(o.reference), role: AccountRole.READONLY }] : [];
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(o.signer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(latest.blockhash), lastValidBlockHeight: BigInt(latest.lastValidBlockHeight) }, m),
    (m) => appendTransactionMessageInstruction({ ...ix, accounts: [...ix.accounts, ...reference] }, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return { wire: getBase64EncodedWireTransaction(signed), signature: getSignatureFromTransaction(signed), ...latest, slot };
}

/** Send wire bytes straight to the node (no preflight), as a wallet that broadcasts itself. */
export function sendRaw(sol: LocalSolana, wire: string): string {
  return sol.chain.send(new Uint8Array(Buffer.from(wire, 'base64')), true);
}
