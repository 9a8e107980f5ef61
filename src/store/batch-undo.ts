// What becomes of a group-commit batch's writes when the batch did not commit (group-commit.ts
// decides when; this file, who is answered what and who runs again). Apart so that file stays
// the mechanism: these are pure decisions over the batch and each write's outcome.
import type { Outcome, Pending } from './group-commit-types';
import { WriteAwaitedIoError } from './group-commit-types';

/** The batch's COMMIT failed with `error`: every write is refused (onAbort for those that had succeeded). */
export function refuseUncommitted(batch: Pending[], results: Outcome[], error: unknown): void {
  let succeeded = false;
  batch.forEach((p, i) => {
    const r = results[i]!;
    if (r.ok) {
      succeeded = true;
      p.onAbort?.();
      p.reject(error);
    } else if (succeeded) {
      // It failed on its own after a write that succeeded, maybe on what that one wrote (a 409
      // naming a state it set), which never committed: the COMMIT error, not an answer read
      // from rows that never existed.
      p.reject(error);
    } else {
      // It failed on its own on committed rows only (a 409, a 400...): that is its answer.
      p.reject(r.error);
    }
  });
}

/**
 * A write without a savepoint failed (batch[at]) and the transaction was rolled back: the writes
 * before it that must run again, in their order (see group-commit.ts rollBackBatch); the others
 * before it are answered here.
 */
export function writesToRunAgain(batch: Pending[], results: Outcome[], at: number): Pending[] {
  const again: Pending[] = [];
  let succeeded = false;
  for (let i = 0; i < at; i++) {
    const p = batch[i]!;
    const r = results[i]!;
    if (r.ok) {
      succeeded = true;
      p.onAbort?.();
      again.push(p);
    } else if (succeeded && !(r.error instanceof WriteAwaitedIoError)) again.push(p);
    else p.reject(r.error);
  }
  return again;
}
