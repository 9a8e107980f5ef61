// EVM address syntax and canonical form (EIP-55 checksum), used at create time and for storage.
import { getAddress } from 'viem';

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/** Pure syntax: 0x + 40 hex. Mixed case is not checksum-checked here; storage normalizes it. */
export function isValidAddress(address: string): boolean {
  return ADDRESS_RE.test(address);
}

export function normalizeAddress(address: string): string {
  // getAddress would reject a bad mixed-case checksum; lowering first accepts any valid hex.
  return getAddress(address.toLowerCase());
}

export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
