// Test wallets: sign the base64 v0 message that build returned, the way a wallet would,
// with @solana/kit key pairs, and produce the base64 wire transaction submit expects.
import {
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  partiallySignTransaction,
  type KeyPairSigner,
  type SignatureBytes,
  type Transaction,
  type TransactionMessageBytes,
} from '@solana/kit';

/** Signs with every given signer; required signers without a key stay unsigned (null). */
export async function signMessageBlob(blob: string, signers: KeyPairSigner[]): Promise<string> {
  const messageBytes = new Uint8Array(Buffer.from(blob, 'base64')) as unknown as TransactionMessageBytes;
  const message = getCompiledTransactionMessageDecoder().decode(messageBytes);
  const required = message.staticAccounts.slice(0, message.header.numSignerAccounts);
  const unsigned: Transaction = {
    messageBytes,
    signatures: Object.fromEntries(required.map((a) => [a, null as SignatureBytes | null])) as Transaction['signatures'],
  };
  const own = signers.filter((s) => required.includes(s.address));
  const signed = await partiallySignTransaction(own.map((s) => s.keyPair), unsigned);
  return getBase64EncodedWireTransaction(signed);
}

/** Re-key a message's fee payer signature slot: sign the bytes with a key that is NOT the fee payer. */
export async function signAsSomeoneElse(blob: string, impostor: KeyPairSigner): Promise<string> {
  const messageBytes = new Uint8Array(Buffer.from(blob, 'base64'));
  const message = getCompiledTransactionMessageDecoder().decode(messageBytes as unknown as TransactionMessageBytes);
  const sig = await crypto.subtle.sign('Ed25519', impostor.keyPair.privateKey, messageBytes);
  const unsigned: Transaction = {
    messageBytes: messageBytes as unknown as TransactionMessageBytes,
    signatures: { [message.staticAccounts[0]!]: new Uint8Array(sig) as SignatureBytes } as Transaction['signatures'],
  };
  return getBase64EncodedWireTransaction(unsigned);
}
