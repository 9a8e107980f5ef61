// `--since`: an ISO 8601 time or a duration back from now ("15m", "2h", "1d").
import { UsageError } from './common';

const UNIT_MS = new Map([['s', 1_000], ['m', 60_000], ['h', 3_600_000], ['d', 86_400_000]]);

export function parseSince(raw: string, now = Date.now()): number {
  const d = /^(\d{1,6})([smhd])$/.exec(raw);
  if (d) return now - Number(d[1]) * UNIT_MS.get(d[2]!)!;
  const t = Date.parse(raw);
  if (!Number.isFinite(t) || !/^\d{4}-\d{2}-\d{2}/.test(raw)) {
    throw new UsageError(`--since must be an ISO 8601 time (2026-01-31T12:00:00Z) or a duration like 15m, 2h, 1d`);
  }
  return t;
}
