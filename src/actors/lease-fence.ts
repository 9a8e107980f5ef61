// Fencing for leased work (pg-design 9): a write made for a watch, a deadline or a detection scan
// carries the (lease name, epoch) it was started under and checks it FIRST in its own transaction.
// When the lease moved (taken over after this instance stalled, or given away), the write is
// dropped: nothing is written, nobody is told of an error (the new holder does that work now,
// from the rows), and the caller stops that work.
import type { LeaseStore } from '../store/leases';
import type { Fence } from './work-leases';

export class LeaseMoved extends Error {
  constructor(readonly lease: string) {
    super(`lease ${lease} is no longer held by this instance: the write is dropped`);
    this.name = 'LeaseMoved';
  }
}

/**
 * Inside a write: throw LeaseMoved unless `owner` still holds `fence` (null: it held no lease for
 * this work when the write started). On PostgreSQL the check locks the lease row FOR SHARE, so a
 * takeover waits until this write has committed or rolled back.
 */
export async function checkFence(leases: Pick<LeaseStore, 'check'>, fence: Fence | null, owner: string, what: string): Promise<void> {
  if (fence === null) throw new LeaseMoved(what);
  if (!(await leases.check(fence.name, fence.epoch, owner))) throw new LeaseMoved(fence.name);
}

export const isLeaseMoved = (e: unknown): e is LeaseMoved => e instanceof LeaseMoved;
