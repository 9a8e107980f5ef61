// Wallets that pay an intent from its `paymentUri` alone (contract 11: no build, no submit), for the
// benches' wallet-sends paths: an EIP-681 transfer sent by a viem wallet client (its own nonce and
// gas, as MetaMask does) and a Solana Pay transfer request parsed by @solana/pay and composed as a
// Solana Pay wallet does (transferChecked, the references as read-only keys), sent with preflight.
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
  type createSolanaRpc,
  type KeyPairSigner,
} from '@solana/kit';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { erc20Abi, type Hex, type WalletClient } from 'viem';
// @solana/pay 1.0.16 wants @solana/kit ^6.5 as a peer while PayForge pins 8.4: its parser is
// imported from its source file (it needs only kit's `address`).
import { parseURL, type TransferRequestURL } from '../../node_modules/@solana/pay/src/parseURL';

/** Send the EIP-681 `ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<units>` transfer; returns the hash. */
export async function payEip681(wallet: WalletClient, uri: string): Promise<Hex> {
  const m = /^ethereum:(0x[0-9a-fA-F]{40})@\d+\/transfer\?address=(0x[0-9a-fA-F]{40})&uint256=(\d+)$/.exec(uri);
  if (!m) throw new Error(`not an EIP-681 transfer: ${uri}`);
  return wallet.writeContract({ address: m[1] as Hex, abi: erc20Abi, functionName: 'transfer', args: [m[2] as Hex, BigInt(m[3]!)], account: wallet.account!, chain: wallet.chain });
}

/** Compose, sign and send the Solana Pay transfer request; returns the signature. */
export async function paySolanaPay(rpc: ReturnType<typeof createSolanaRpc>, payer: KeyPairSigner, uri: string, decimals: number): Promise<string> {
  const req = parseURL(uri) as TransferRequestURL;
  const mint = req.splToken!;
  const [source] = await findAssociatedTokenPda({ owner: payer.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const [destination] = await findAssociatedTokenPda({ owner: req.recipient, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  // The URI's amount is a decimal string in token units; scale it exactly (no float).
  const [whole, frac = ''] = new URL(uri).searchParams.get('amount')!.split('.');
  const amount = BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
  const ix = getTransferCheckedInstruction({ source, mint, destination, authority: payer, decimals, amount });
  const withRefs = { ...ix, accounts: [...ix.accounts, ...(req.reference ?? []).map((r) => ({ address: address(r), role: AccountRole.READONLY }))] };
  const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) => appendTransactionMessageInstruction(withRefs, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
  return getSignatureFromTransaction(signed);
}
