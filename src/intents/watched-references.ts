// The Solana Pay references a detector searches (contract section 11), read as the receivers are
// (watched-receivers.ts): DetectionRepo.references lists every intent of the look-back that has a
// reference, one row per intent, so the exact read visits every closed row of the look-back each
// poll (O(intents closed within a week)). Whole once per refresh period, in between the live rows
// and the rows closed since the previous poll (less the margin), merged: an intent whose close
// left the look-back stays listed until the next refresh (wider, never narrower). One entry per
// intent's row, so the answer is the exact one plus those stragglers; the detector's round robin
// walks the refresh's order, then the arrivals.
import type { WatchedReference } from '../store/detection';
import { refreshedWatch, type WatchShape } from './watched-receivers';

const referenceShape: WatchShape<WatchedReference> = {
  key: (r) => `${r.reference}\u0000${r.requestor}\u0000${r.tokenAddress}\u0000${r.createdAt}`,
  wider: () => false, // same key, same row: nothing to widen
};

/** `read(closedSince)` is DetectionRepo.references of one chain. */
export function watchedReferences(
  read: (closedSince: number) => Promise<WatchedReference[]>,
  lookbackMs: number,
  now: () => number = Date.now,
): () => Promise<WatchedReference[]> {
  return refreshedWatch(read, referenceShape, lookbackMs, now);
}
