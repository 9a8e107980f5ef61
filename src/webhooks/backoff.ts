// When a failed delivery is tried again: the configured schedule (seconds between attempts,
// length + 1 = max attempts) with ±10% jitter so retries to one receiver do not stampede.

/** The promise of contract section 8: the last attempt no later than 72 h after the first. */
export const MAX_SPAN_MS = 72 * 3600 * 1000;

export const maxAttempts = (schedule: readonly number[]): number => schedule.length + 1;

/**
 * The next attempt's time after `attemptsDone` failed attempts, or null when none is left.
 * `firstAt` is when the delivery first became due (its row's createdAt): jitter may pull an
 * attempt earlier or later, but never past firstAt + max(72 h, the schedule's own span).
 */
export function nextAttemptAt(
  schedule: readonly number[],
  attemptsDone: number,
  now: number,
  firstAt: number,
  random: () => number = Math.random,
): number | null {
  const waitSeconds = schedule[attemptsDone - 1];
  if (waitSeconds === undefined) return null;
  const jitter = 1 + (random() * 2 - 1) * 0.1;
  const bound = firstAt + Math.max(MAX_SPAN_MS, schedule.reduce((a, s) => a + s, 0) * 1000);
  return Math.min(now + Math.round(waitSeconds * 1000 * jitter), Math.max(bound, now));
}
