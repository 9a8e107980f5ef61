// Ids: hot-path ids are time-ordered (they append to their indexes) and still unguessable;
// account and key ids stay fully random.
import { describe, expect, it } from 'vitest';
import { base62Time, newId, randomBase62 } from '../../src/domain/ids';
import { newPayToken } from '../../src/domain/pay-url';

describe('ids', () => {
  it('pi_, evt_, whd_ ids keep their shape and sort by creation time', () => {
    const t0 = Date.UTC(2026, 10, 23);
    const ids = [0, 1, 1000, 86_400_000, 365 * 86_400_000].map((d) => newId('pi', 24, t0 + d));
    for (const id of ids) expect(id).toMatch(/^pi_[0-9A-Za-z]{24}$/);
    expect([...ids].sort()).toEqual(ids);
    for (const p of ['evt', 'whd'] as const) expect(newId(p, 24, t0).slice(4, 12)).toBe(base62Time(t0));
  });

  it('two ids made in the same millisecond differ in their 16 random characters', () => {
    const t = Date.now();
    const seen = new Set(Array.from({ length: 10_000 }, () => newId('pi', 24, t).slice(11)));
    expect(seen.size).toBe(10_000);
  });

  it('pay tokens keep the contract shape, lead with the clock and differ in 24 random characters', () => {
    const t0 = Date.UTC(2026, 10, 23);
    const tokens = [0, 1, 60_000, 86_400_000].map((d) => newPayToken(t0 + d));
    for (const t of tokens) expect(t).toMatch(/^pt_[0-9A-Za-z]{32}$/);
    expect([...tokens].sort()).toEqual(tokens);
    expect(tokens[0]!.slice(3, 11)).toBe(base62Time(t0));
    const seen = new Set(Array.from({ length: 10_000 }, () => newPayToken(t0).slice(11)));
    expect(seen.size).toBe(10_000);
    for (const t of seen) expect(t).toMatch(/^[0-9A-Za-z]{24}$/);
  });

  it('account and key ids lead with no clock', () => {
    const t = Date.UTC(2030, 0, 1);
    const prefixes = new Set(Array.from({ length: 50 }, () => newId('acct', 24, t).slice(5, 13)));
    expect(prefixes.size).toBeGreaterThan(45);
  });

  it('the clock part is fixed width and ordered across a base62 digit roll-over', () => {
    expect(base62Time(61)).toBe('0000000z');
    expect(base62Time(62)).toBe('00000010');
    expect(base62Time(61) < base62Time(62)).toBe(true);
  });

  it('random characters stay uniform across many refills of the random byte pool', () => {
    // 310,000 characters use ~80 pools of 4 KiB: a reused or unfilled pool would skew this.
    const counts = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) for (const c of randomBase62(31)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Each character is expected 5,000 times (sd ~70): far outside these bounds means bias.
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(4_500);
      expect(n).toBeLessThan(5_500);
    }
    const seen = new Set(Array.from({ length: 20_000 }, () => randomBase62(16)));
    expect(seen.size).toBe(20_000);
  });

  it('strings of any length come whole and well-formed from the character pool, never handed out twice', () => {
    for (const n of [0, 1, 7, 62, 1023, 1024, 1025, 4096, 9000]) expect(randomBase62(n)).toMatch(new RegExp(`^[0-9A-Za-z]{${n}}$`));
    // ~300 refills of mixed lengths: a refill that reused characters, or a slice that overlapped
    // the one before it, would repeat a 16-character string (1 in 2^95 by chance).
    const seen = new Set<string>();
    for (let i = 0; i < 60_000; i++) {
      randomBase62(i % 5);
      const s = randomBase62(16);
      expect(seen.has(s)).toBe(false);
      seen.add(s);
    }
  });
});
