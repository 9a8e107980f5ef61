// Exact money: bigint base units inside, decimal strings at the edge. No floats anywhere.

const DECIMAL_RE = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export type ParseAmountResult =
  | { ok: true; baseUnits: bigint }
  | { ok: false; reason: 'format' | 'too_many_decimals' | 'not_positive' };

/** "12.34" with 6 decimals -> 12340000n. Refuses signs, exponents, spaces and excess precision. */
export function parseAmount(amount: string, decimals: number): ParseAmountResult {
  if (!DECIMAL_RE.test(amount)) return { ok: false, reason: 'format' };
  const [whole, frac = ''] = amount.split('.') as [string, string?];
  const fracDigits = frac ?? '';
  // Trailing zeros beyond the token's precision are harmless ("1.500000000" for 6 decimals).
  const trimmed = fracDigits.replace(/0+$/, '');
  if (trimmed.length > decimals) return { ok: false, reason: 'too_many_decimals' };
  const baseUnits = BigInt(whole) * 10n ** BigInt(decimals) + BigInt((trimmed.padEnd(decimals, '0') || '0'));
  if (baseUnits <= 0n) return { ok: false, reason: 'not_positive' };
  return { ok: true, baseUnits };
}

/** 12340000n with 6 decimals -> "12.34" (canonical: no trailing zeros, no trailing dot). */
export function formatAmount(baseUnits: bigint, decimals: number): string {
  const negative = baseUnits < 0n;
  const abs = negative ? -baseUnits : baseUnits;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const frac = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}
