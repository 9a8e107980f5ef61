// Response instants (schema-kit's Iso, format date-time) are checked as the exact shape
// toISOString writes, by our own entry in TypeBox's format registry (Elysia's lenient one cost
// ~1 µs per value on every response).
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { describe, expect, it } from 'vitest';
import { Iso } from '../../src/api/schema-kit';

const check = TypeCompiler.Compile(Iso);

describe('Iso (date-time) in responses', () => {
  it('accepts what toISOString writes', () => {
    for (const ms of [0, 1_700_000_000_123, Date.UTC(2026, 1, 28, 23, 59, 59, 999), Date.UTC(9999, 11, 31)]) {
      expect(check.Check(new Date(ms).toISOString()), new Date(ms).toISOString()).toBe(true);
    }
  });

  it('refuses anything else: another shape, a zone other than Z, no milliseconds, out-of-range fields', () => {
    for (const v of [
      '2026-11-24T01:02:03Z',
      '2026-11-24T01:02:03.123+01:00',
      '2026-11-24 01:02:03.123Z',
      '2026-13-01T00:00:00.000Z',
      '2026-11-32T00:00:00.000Z',
      '2026-11-24T24:00:00.000Z',
      'Tue Nov 24 2026 01:02:03 GMT+0000 (Coordinated Universal Time)',
      '2026-11-24T01:02:03.123Z\n',
      '',
    ]) {
      expect(check.Check(v), v).toBe(false);
    }
  });
});
