// Identifiers: a prefix plus base62 characters (pi_, evt_, whd_, acct_, key_ ...). Rows written
// on the hot path (intents, events, deliveries) get TIME-ORDERED ids: 8 characters of the
// millisecond clock then 16 random ones (~95 bits), so inserts append to the id indexes instead of
// landing all over them; they reveal the creation time (as Stripe's ids do) but not volume, and
// stay unguessable. Pay tokens (`pt_`, 32 characters: 8 of the clock, 24 random, ~143 bits) too:
// the page's look-up index then appends as well (src/domain/pay-url.ts). Account and key ids stay
// fully random.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random characters are made 4 KiB of CSPRNG bytes at a time: each byte below 248 becomes one
// base62 character (rejection sampling: no modulo bias), the lot decoded into one string, and an
// id takes the next `length` characters of it (a substring: no per-character concatenation; ~4x
// cheaper per id than building it a character at a time, five ids per create). Each character is
// handed out once; the bytes are zeroed once turned into characters.
const CODES = new Uint8Array(248);
for (let b = 0; b < CODES.length; b++) CODES[b] = ALPHABET.charCodeAt(b % 62);
const BYTES = new Uint8Array(4096);
const OUT = new Uint8Array(BYTES.length);
const ascii = new TextDecoder();
let chars = '';
let charsAt = 0;

function refill(): void {
  crypto.getRandomValues(BYTES);
  let n = 0;
  for (let i = 0; i < BYTES.length; i++) {
    const b = BYTES[i]!;
    if (b < 248) OUT[n++] = CODES[b]!;
  }
  chars = ascii.decode(OUT.subarray(0, n));
  BYTES.fill(0);
  OUT.fill(0);
  charsAt = 0;
}

/** `length` uniformly random base62 characters. */
export function randomBase62(length: number): string {
  // (A refill yields ~3,870 characters; longer strings are put together from several.)
  if (length > 1024) return randomBase62(1024) + randomBase62(length - 1024);
  while (charsAt + length > chars.length) refill();
  const out = chars.slice(charsAt, charsAt + length);
  charsAt += length;
  return out;
}

export type IdPrefix = 'pi' | 'evt' | 'whd' | 'pay' | 'pt' | 'acct' | 'key' | 'req';

/** Prefixes whose ids lead with the clock (insert-heavy tables, ordered by creation anyway). */
const TIME_ORDERED: ReadonlySet<IdPrefix> = new Set(['pi', 'evt', 'whd', 'pay', 'pt']);
const TIME_CHARS = 8; // 62^8 ms ≈ 6,900 years from 1970

// The last millisecond encoded: a create makes four time-ordered ids within the same one.
let lastMs = -1;
let lastTime = '';

/** The millisecond clock as fixed-width base62 (lexicographic order = time order). */
export function base62Time(ms: number): string {
  let n = Math.floor(ms);
  if (n === lastMs) return lastTime;
  lastMs = n;
  let out = '';
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  lastTime = out;
  return out;
}

export function newId(prefix: IdPrefix, length = 24, now = Date.now()): string {
  if (TIME_ORDERED.has(prefix) && length > TIME_CHARS + 12) {
    return `${prefix}_${base62Time(now)}${randomBase62(length - TIME_CHARS)}`;
  }
  return `${prefix}_${randomBase62(length)}`;
}

export const BASE62_RE = /^[0-9A-Za-z]+$/;
