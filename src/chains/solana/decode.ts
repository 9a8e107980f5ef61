// Decoding a submitted wire transaction (signatures + message). Anything that is not one gives
// 400 request.invalid_param on signedTransaction, never a 500.
import {
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type CompiledTransactionMessage,
  type CompiledTransactionMessageWithLifetime,
  type Transaction,
} from '@solana/kit';
import { invalidParam } from '../../domain/errors';

export interface DecodedTransaction {
  transaction: Transaction;
  message: CompiledTransactionMessage & CompiledTransactionMessageWithLifetime;
  /** base58 of the first signature (the transaction id on Solana); null when that slot is unsigned. */
  signature: string | null;
}

const BASE64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

export function decodeWireTransaction(base64: string): DecodedTransaction {
  const refuse = (why: string) =>
    invalidParam('signedTransaction', `signedTransaction is not a base64 Solana wire transaction: ${why}`);
  if (typeof base64 !== 'string' || base64.length === 0 || base64.length % 4 !== 0 || !BASE64_RE.test(base64)) {
    throw refuse('not base64');
  }
  const bytes = new Uint8Array(Buffer.from(base64, 'base64'));
  let transaction: Transaction;
  let message: DecodedTransaction['message'];
  try {
    transaction = getTransactionDecoder().decode(bytes);
    message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    // Trailing garbage or a short buffer decodes "successfully" into something else; re-encoding
    // must give back exactly the submitted bytes.
    const again = getTransactionEncoder().encode(transaction);
    if (again.length !== bytes.length || !again.every((b, i) => b === bytes[i])) throw new Error('trailing bytes');
  } catch (e) {
    throw refuse(e instanceof Error ? e.message : 'undecodable');
  }
  if (message.staticAccounts.length === 0) throw refuse('it names no fee payer');
  const first = transaction.signatures[message.staticAccounts[0]!];
  return { transaction, message, signature: first ? getBase58Decoder().decode(first) : null };
}
