// Identifiers: a prefix plus random base62 characters (pi_, evt_, whd_, acct_, key_ ...).
// Random, not sequential, so ids leak neither volume nor order across accounts.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` uniformly random base62 characters (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const b of bytes) {
      if (b < 248 && out.length < length) out += ALPHABET[b % 62];
    }
  }
  return out;
}

export type IdPrefix = 'pi' | 'evt' | 'whd' | 'acct' | 'key' | 'req';

export function newId(prefix: IdPrefix, length = 24): string {
  return `${prefix}_${randomBase62(length)}`;
}

export const BASE62_RE = /^[0-9A-Za-z]+$/;
