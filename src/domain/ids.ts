// Identifiers: a prefix plus base62 characters (pi_, evt_, whd_, acct_, key_ ...). Rows written
// on the hot path (intents, events, deliveries) get TIME-ORDERED ids: 8 characters of the
// millisecond clock then 16 random ones (~95 bits), so inserts append to the id indexes instead of
// landing all over them; they reveal the creation time (as Stripe's ids do) but not volume, and
// stay unguessable. Pay tokens (`pt_`, 32 characters: 8 of the clock, 24 random, ~143 bits) too:
// the page's look-up index then appends as well (src/domain/pay-url.ts). Account and key ids stay
// fully random.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn from the CSPRNG 4 KiB at a time and each byte is used once: one
// getRandomValues call and no Uint8Array per id (five ids per create; ~3 % of a create before).
const POOL = new Uint8Array(4096);
let poolAt = POOL.length;

/** `length` uniformly random base62 characters (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    if (poolAt === POOL.length) {
      crypto.getRandomValues(POOL);
      poolAt = 0;
    }
    const b = POOL[poolAt]!;
    // Never handed out twice: zeroed once read.
    POOL[poolAt++] = 0;
    if (b < 248) out += ALPHABET[b % 62];
  }
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
