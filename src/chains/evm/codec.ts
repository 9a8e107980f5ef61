// Signed transaction bytes: base64 in, parsed fields, recovered signer and hash out.
// Anything that is not a signed EVM transaction is the caller's input error (400), not a mismatch.
import {
  bytesToHex,
  getAddress,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  type Hex,
  type TransactionSerialized,
} from 'viem';
import { AppError, invalidParam } from '../../domain/errors';

export interface DecodedSignedTx {
  hex: Hex;
  hash: Hex;
  signer: string;
  chainId: number | undefined;
  nonce: number;
  to: string | null | undefined;
  data: Hex | undefined;
  value: bigint | undefined;
}

const BASE64_RE = /^[A-Za-z0-9+/]+={0,2}$/;
// Types whose signature recovery and hashing viem does generically; blob and 7702 txs never pay an intent.
const SUPPORTED = new Set(['legacy', 'eip2930', 'eip1559']);

export function base64ToHex(b64: string): Hex {
  const clean = b64.trim();
  if (clean.length === 0 || clean.length % 4 !== 0 || !BASE64_RE.test(clean)) {
    throw invalidParam('signedTransaction', 'signedTransaction is not valid base64');
  }
  return bytesToHex(Buffer.from(clean, 'base64'));
}

export const hexToBase64 = (hex: Hex): string => Buffer.from(hex.slice(2), 'hex').toString('base64');

export async function decodeSignedTx(b64: string): Promise<DecodedSignedTx> {
  const hex = base64ToHex(b64);
  const bad = (why: string, cause?: unknown) =>
    new AppError('request.invalid_param', `signedTransaction is not a signed EVM transaction: ${why}`, {
      param: 'signedTransaction',
      cause,
    });
  let tx: ReturnType<typeof parseTransaction>;
  try {
    tx = parseTransaction(hex as TransactionSerialized);
  } catch (e) {
    throw bad('undecodable', e);
  }
  if (!SUPPORTED.has(tx.type as string)) throw bad(`unsupported type ${String(tx.type)}`);
  if (tx.r === undefined || tx.s === undefined) throw bad('unsigned');
  let signer: string;
  try {
    signer = getAddress(await recoverTransactionAddress({ serializedTransaction: hex as TransactionSerialized }));
  } catch (e) {
    throw bad('signature does not recover', e);
  }
  return {
    hex,
    hash: keccak256(hex),
    signer,
    chainId: tx.chainId,
    nonce: tx.nonce ?? 0,
    to: tx.to,
    data: tx.data,
    value: tx.value,
  };
}
