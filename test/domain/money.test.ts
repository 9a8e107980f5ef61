// parseAmount and formatAmount (src/domain/money.ts) against the plain bigint arithmetic they
// stand for: every amount string, every precision, round trips.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAmount, MAX_BASE_UNITS, parseAmount } from '../../src/domain/money';

/** The reference: division and remainder by 10^decimals. */
function formatted(baseUnits: bigint, decimals: number): string {
  const abs = baseUnits < 0n ? -baseUnits : baseUnits;
  const scale = 10n ** BigInt(decimals);
  const frac = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${baseUnits < 0n ? '-' : ''}${abs / scale}${frac ? `.${frac}` : ''}`;
}

const decimals = fc.integer({ min: 0, max: 30 });

describe('formatAmount', () => {
  it('is the decimal of baseUnits / 10^decimals, without trailing zeros', () => {
    expect(formatAmount(12_340_000n, 6)).toBe('12.34');
    expect(formatAmount(0n, 6)).toBe('0');
    expect(formatAmount(1n, 6)).toBe('0.000001');
    expect(formatAmount(5n, 0)).toBe('5');
    expect(formatAmount(-12_340_000n, 6)).toBe('-12.34');
    fc.assert(fc.property(fc.bigInt({ min: -(2n ** 256n), max: 2n ** 256n }), decimals, (v, d) => formatAmount(v, d) === formatted(v, d)));
  });
});

describe('parseAmount', () => {
  it('reads what formatAmount writes, back to the same base units', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 2n ** 256n - 1n }), decimals, fc.nat(4), (v, d, zeros) => {
        const text = formatAmount(v, d);
        const padded = text.includes('.') || d === 0 ? text + '0'.repeat(d === 0 ? 0 : zeros) : text;
        const r = parseAmount(padded, d);
        return r.ok && r.baseUnits === v;
      }),
    );
  });

  it('refuses what is not a positive amount of at most `decimals` decimals within max', () => {
    const reason = (a: string, d: number, max?: bigint) => {
      const r = parseAmount(a, d, max);
      return r.ok ? `ok ${r.baseUnits}` : r.reason;
    };
    expect(reason('12.34', 6)).toBe('ok 12340000');
    expect(reason('1.500000000', 6)).toBe('ok 1500000');
    expect(reason('7', 0)).toBe('ok 7');
    expect(reason('7.0', 0)).toBe('ok 7');
    expect(reason('0.1', 0)).toBe('too_many_decimals');
    expect(reason('1.2345678', 6)).toBe('too_many_decimals');
    expect(reason('0', 6)).toBe('not_positive');
    expect(reason('0.000', 6)).toBe('not_positive');
    for (const bad of ['', '.5', '5.', '-1', '+1', '1e5', '00.1', '01', ' 1', '1,5', '0x10']) expect(reason(bad, 6)).toBe('format');
    expect(reason('9'.repeat(181), 6)).toBe('too_long');
    const u64 = MAX_BASE_UNITS.get('solana')!;
    expect(reason(formatAmount(u64, 9), 9, u64)).toBe(`ok ${u64}`);
    expect(reason(formatAmount(u64 + 1n, 9), 9, u64)).toBe('too_large');
  });
});
