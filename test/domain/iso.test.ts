// iso() keeps the last two instants it formatted (src/domain/intent.ts): whatever order instants
// come in, each answer is that instant's toISOString.
import { describe, expect, it } from 'vitest';
import { iso } from '../../src/domain/intent';

describe('iso', () => {
  it('answers toISOString for every instant, repeated, alternated or new', () => {
    const t = Date.UTC(2026, 10, 24, 1, 2, 3, 456);
    const seq = [t, t + 3_600_000, t, t, t + 3_600_000, t + 1, t, t + 1, t + 3_600_000, 0, t, 0, -1, t + 1];
    for (const ms of seq) expect(iso(ms)).toBe(new Date(ms).toISOString());
  });
});
