// Exact money: bigint base units inside, decimal strings at the edge. No floats anywhere.

const DECIMAL_RE = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * The largest amount a transfer instruction can carry on each family: EVM token transfers take a
 * uint256, SPL Token's transferChecked a u64. An intent above it could never be paid (build failed).
 */
// Keyed by chain family ('evm' | 'solana', as domain/intent's ChainFamily; written out to keep
// money.ts free of imports).
export const MAX_BASE_UNITS: ReadonlyMap<'evm' | 'solana', bigint> = new Map<'evm' | 'solana', bigint>([
  ['evm', 2n ** 256n - 1n],
  ['solana', 2n ** 64n - 1n],
]);

/**
 * Longest amount string looked at: 2^256 - 1 has 78 digits; with a point and up to 100 decimals
 * (trailing zeros allowed) no payable amount is longer. Checked before any regex or BigInt work,
 * so a million-digit string costs nothing.
 */
export const MAX_AMOUNT_CHARS = 180;

export type ParseAmountResult =
  | { ok: true; baseUnits: bigint }
  | { ok: false; reason: 'too_long' | 'format' | 'too_many_decimals' | 'not_positive' | 'too_large' };

/**
 * "12.34" with 6 decimals -> 12340000n. Refuses signs, exponents, spaces, excess precision, and
 * (when `max` is given) amounts above it.
 */
// 10^0 .. 10^18 made once (every token's decimals are within it): a create's amount needs one,
// and `10n ** BigInt(k)` made three BigInts for it each time.
const POW10: readonly bigint[] = Array.from({ length: 19 }, (_, k) => 10n ** BigInt(k));
const pow10 = (k: number): bigint => POW10[k] ?? 10n ** BigInt(k);

export function parseAmount(amount: string, decimals: number, max?: bigint): ParseAmountResult {
  if (amount.length > MAX_AMOUNT_CHARS) return { ok: false, reason: 'too_long' };
  if (!DECIMAL_RE.test(amount)) return { ok: false, reason: 'format' };
  // String work and one BigInt of the digits (this runs once per create).
  const dot = amount.indexOf('.');
  const whole = dot === -1 ? amount : amount.slice(0, dot);
  // Trailing zeros beyond the token's precision are harmless ("1.500000000" for 6 decimals).
  let end = amount.length;
  if (dot !== -1) while (end > dot + 1 && amount.charCodeAt(end - 1) === 48) end--;
  const fracDigits = dot === -1 ? 0 : end - dot - 1;
  if (fracDigits > decimals) return { ok: false, reason: 'too_many_decimals' };
  const digits = fracDigits === 0 ? whole : whole + amount.slice(dot + 1, end);
  const baseUnits = fracDigits === decimals ? BigInt(digits) : BigInt(digits) * pow10(decimals - fracDigits);
  if (baseUnits <= 0n) return { ok: false, reason: 'not_positive' };
  if (max !== undefined && baseUnits > max) return { ok: false, reason: 'too_large' };
  return { ok: true, baseUnits };
}

// The last amount written out: a create writes its amount four times (the wire's amount and
// amountBaseUnits, the payment URI, the row), a bigint toString each (~0.1-0.2 µs) but the first.
let lastUnits = -1n;
let lastText = '';

/** `v.toString()` (decimal), remembered for the last value asked. */
export function baseUnitsText(v: bigint): string {
  if (v === lastUnits) return lastText;
  lastText = v.toString();
  lastUnits = v;
  return lastText;
}

/** 12340000n with 6 decimals -> "12.34" (canonical: no trailing zeros, no trailing dot). */
export function formatAmount(baseUnits: bigint, decimals: number): string {
  // One bigint toString, then string cuts (every rendering of an intent formats its amount).
  const negative = baseUnits < 0n;
  const digits = baseUnitsText(negative ? -baseUnits : baseUnits);
  const cut = digits.length - decimals;
  const whole = cut > 0 ? digits.slice(0, cut) : '0';
  const frac = cut > 0 ? digits.slice(cut) : digits.padStart(decimals, '0');
  let end = frac.length;
  while (end > 0 && frac.charCodeAt(end - 1) === 48) end--;
  const sign = negative ? '-' : '';
  return end === 0 ? sign + whole : `${sign}${whole}.${frac.slice(0, end)}`;
}
