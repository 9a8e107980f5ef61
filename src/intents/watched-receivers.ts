// The receivers a detector watches each poll (contract section 11), without reading the whole
// look-back every poll. The exact read (DetectionRepo.receivers: receivers of live intents and of
// intents closed since the look-back) visits every closed row of the look-back: ~0.6 s at 1M
// intents closed within a week, and a detector polls every second (bench/boot's idle CPU). So the
// whole look-back is read once per refresh period; each poll in between reads the live receivers
// (exact, a few index seeks per receiver) and the intents closed since the previous poll, less a
// margin for a commit that becomes visible after its clock time, and merges them into what it had.
// Between two refreshes the answer can only be wider than the exact one: a receiver whose last
// closed intent left the look-back stays watched until the next refresh, and a receiver's `since`
// is never later than the exact one. Nothing the exact read would watch is ever left out.
import type { WatchedReceiver } from '../store/detection';

/**
 * A close whose commit becomes visible later than this after its clock time (tx.now) is read at the
 * next refresh only; its receiver is still watched meanwhile if any poll saw the intent live.
 */
export const LATE_COMMIT_MARGIN_MS = 10_000;
/** The longest a receiver stays watched past its look-back (a tenth of the look-back when shorter). */
export const MAX_REFRESH_MS = 5 * 60_000;

type Read = (closedSince: number) => Promise<WatchedReceiver[]>;

const key = (r: WatchedReceiver) => `${r.requestor}\u0000${r.tokenAddress}`;
// The repository's order (receiver, then token, byte order).
const byReceiver = (a: WatchedReceiver, b: WatchedReceiver) =>
  a.requestor < b.requestor ? -1 : a.requestor > b.requestor ? 1 : a.tokenAddress < b.tokenAddress ? -1 : a.tokenAddress > b.tokenAddress ? 1 : 0;

/**
 * `read(closedSince)` is DetectionRepo.receivers of one chain. The returned function answers a
 * poll: a full read when the last one is older than the refresh period, else the merge.
 */
export function watchedReceivers(read: Read, lookbackMs: number, now: () => number = Date.now): () => Promise<WatchedReceiver[]> {
  const refreshMs = Math.min(MAX_REFRESH_MS, lookbackMs / 10);
  let known = new Map<string, WatchedReceiver>();
  let fullAt = -Infinity;
  let lastAt = -Infinity;
  return async () => {
    const at = now();
    if (at - fullAt >= refreshMs) {
      const all = await read(at - lookbackMs);
      known = new Map(all.map((r) => [key(r), r]));
      fullAt = lastAt = at;
      return all;
    }
    for (const r of await read(Math.max(lastAt - LATE_COMMIT_MARGIN_MS, at - lookbackMs))) {
      const cur = known.get(key(r));
      if (!cur || r.since < cur.since) known.set(key(r), r);
    }
    lastAt = at;
    return [...known.values()].sort(byReceiver);
  };
}
