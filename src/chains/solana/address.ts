// Solana address syntax: a base58 string that decodes to exactly 32 bytes. Stored as given
// (base58 has one spelling per key, so there is nothing to normalize).
import { isAddress } from '@solana/kit';

export function isValidAddress(value: string): boolean {
  return typeof value === 'string' && isAddress(value);
}

export function normalizeAddress(value: string): string {
  return value;
}
