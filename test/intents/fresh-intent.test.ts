// A new intent's lifecycle fields: the in-place writer (create's path) and the constant (refund's
// and the tests') must never differ, in values or in key order (records are rendered in order).
import { describe, expect, it } from 'vitest';
import { FRESH_LIFECYCLE, withFreshLifecycle } from '../../src/intents/fresh-intent';

describe('withFreshLifecycle', () => {
  it('adds exactly FRESH_LIFECYCLE, in its order, after the fields already there', () => {
    const o = withFreshLifecycle({ id: 'pi_x', amount: 1 });
    expect(Object.keys(o)).toEqual(['id', 'amount', ...Object.keys(FRESH_LIFECYCLE)]);
    const { id, amount, ...added } = o;
    expect([id, amount]).toEqual(['pi_x', 1]);
    expect(added).toStrictEqual({ ...FRESH_LIFECYCLE });
  });

  it('writes onto the object it is given (no copy)', () => {
    const o = { id: 'pi_y' };
    expect(withFreshLifecycle(o)).toBe(o);
  });
});
