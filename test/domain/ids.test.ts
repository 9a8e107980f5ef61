// Ids: hot-path ids are time-ordered (they append to their indexes) and still unguessable;
// account and key ids stay fully random.
import { describe, expect, it } from 'vitest';
import { base62Time, newId } from '../../src/domain/ids';

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
});
