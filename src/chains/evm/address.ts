// EVM address syntax and canonical form (EIP-55 checksum), used at create time and for storage.
import { getAddress } from 'viem';

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/**
 * 0x + 40 hex, in one case or mixed. Mixed case is an EIP-55 checksum, which exists to catch a
 * mistyped address: a wrong one is refused (as wallets refuse it), never re-checksummed into an
 * address nobody holds, where the payer's money would be lost.
 */
export function isValidAddress(address: string): boolean {
  if (!ADDRESS_RE.test(address)) return false;
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  return getAddress(address.toLowerCase()) === address;
}

export function normalizeAddress(address: string): string {
  // getAddress would reject a bad mixed-case checksum; lowering first accepts any valid hex
  // (what reaches here has passed isValidAddress, or was stored normalized).
  return getAddress(address.toLowerCase());
}

export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
