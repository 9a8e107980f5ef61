// Base58 (Bitcoin alphabet) encoding of random keys, so the domain can mint a Solana Pay
// reference without importing a chain SDK. Pure.

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function base58Encode(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)]! + out;
    n /= 58n;
  }
  // Each leading zero byte is one leading '1'.
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/**
 * A fresh Solana Pay reference: 32 random bytes, base58. Any 32 bytes is a valid account key
 * (it need not be on the curve), and 2^256 makes a collision with a real account moot.
 */
export function newSolanaReference(): string {
  return base58Encode(crypto.getRandomValues(new Uint8Array(32)));
}
