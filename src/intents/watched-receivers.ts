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
// The Solana references (watched-references.ts) are read the same way, through refreshedWatch.
// The whole read itself (wholeReceivers) takes the closed half in pages with a turn of the event
// loop between them: at 1M closed it was one ~0.6 s stall of the server every refresh.
import type { ClosedCursor, DetectionRepo, WatchedReceiver } from '../store/detection';

/**
 * A close whose commit becomes visible later than this after its clock time (tx.now) is read at the
 * next refresh only; its receiver is still watched meanwhile if any poll saw the intent live.
 */
export const LATE_COMMIT_MARGIN_MS = 10_000;
/** The longest a receiver stays watched past its look-back (a tenth of the look-back when shorter). */
export const MAX_REFRESH_MS = 5 * 60_000;

type Read<T> = (closedSince: number) => Promise<T[]>;

export interface WatchShape<T> {
  /** Two entries with one key are one watched thing; `wider(a, b)`: a replaces b when merged. */
  key(x: T): string;
  wider(a: T, b: T): boolean;
  /** The order of a merged answer (the read's own order when absent: refresh order, then arrivals). */
  order?: (a: T, b: T) => number;
}

/**
 * `read(closedSince)` is a DetectionRepo read of one chain (live rows plus rows closed since
 * closedSince); `whole` the same answer for the look-back (by default `read`). The returned function
 * answers a poll: `whole` when the last one is older than the refresh period, else the read since
 * the previous poll (less the margin) merged into it.
 */
export function refreshedWatch<T>(
  read: Read<T>,
  shape: WatchShape<T>,
  lookbackMs: number,
  now: () => number = Date.now,
  whole: Read<T> = read,
): () => Promise<T[]> {
  const refreshMs = Math.min(MAX_REFRESH_MS, lookbackMs / 10);
  let known = new Map<string, T>();
  let fullAt = -Infinity;
  let lastAt = -Infinity;
  return async () => {
    const at = now();
    if (at - fullAt >= refreshMs) {
      const all = await whole(at - lookbackMs);
      known = new Map(all.map((r) => [shape.key(r), r]));
      fullAt = lastAt = at;
      return all;
    }
    for (const r of await read(Math.max(lastAt - LATE_COMMIT_MARGIN_MS, at - lookbackMs))) {
      const k = shape.key(r);
      const cur = known.get(k);
      if (cur === undefined || shape.wider(r, cur)) known.set(k, r);
    }
    lastAt = at;
    const merged = [...known.values()];
    return shape.order ? merged.sort(shape.order) : merged;
  };
}

// The repository's order (receiver, then token, byte order).
const byReceiver = (a: WatchedReceiver, b: WatchedReceiver) =>
  a.requestor < b.requestor ? -1 : a.requestor > b.requestor ? 1 : a.tokenAddress < b.tokenAddress ? -1 : a.tokenAddress > b.tokenAddress ? 1 : 0;

const receiverShape: WatchShape<WatchedReceiver> = {
  key: (r) => `${r.requestor}\u0000${r.tokenAddress}`,
  wider: (a, b) => a.since < b.since,
  order: byReceiver,
};

/** `read(closedSince)` is DetectionRepo.receivers of one chain; `whole` the same read in pages (wholeReceivers). */
export function watchedReceivers(
  read: Read<WatchedReceiver>,
  lookbackMs: number,
  now: () => number = Date.now,
  whole: Read<WatchedReceiver> = read,
): () => Promise<WatchedReceiver[]> {
  return refreshedWatch(read, receiverShape, lookbackMs, now, whole);
}

/** Intents per page of the whole read: ~5-10 ms of the event loop each (bench/boot, 1M closed). */
export const CLOSED_PAGE = 10_000;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * DetectionRepo.receivers(chain, closedSince), read without holding the event loop for the whole
 * closed half: the live half first (a read since the end of time has no closed half), then the
 * closed half page by page with `pause` between pages. An intent that closes (or is updated) between
 * pages moves to a later updated_at, so a later page reads it, and if it was live it is in the live
 * half already: nothing the one-piece read would return is missed; a row read twice merges.
 */
export async function wholeReceivers(
  repo: Pick<DetectionRepo, 'receivers' | 'closedReceiversPage'>,
  chain: string,
  closedSince: number,
  pause: () => Promise<void> = turn,
  limit = CLOSED_PAGE,
): Promise<WatchedReceiver[]> {
  const groups = new Map<string, WatchedReceiver>();
  const merge = (r: WatchedReceiver) => {
    const k = receiverShape.key(r);
    const cur = groups.get(k);
    if (cur === undefined || r.since < cur.since) groups.set(k, r);
  };
  for (const r of await repo.receivers(chain, Number.MAX_SAFE_INTEGER)) merge(r);
  let after: ClosedCursor | null = null;
  do {
    const page = await repo.closedReceiversPage(chain, closedSince, after, limit);
    for (const r of page.receivers) merge(r);
    after = page.next;
    if (after !== null) await pause();
  } while (after !== null);
  return [...groups.values()].sort(byReceiver);
}
