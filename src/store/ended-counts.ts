// The live view's counts of an account's intents in the states that are not live, the ended ones
// (finalized, failed, expired, cancelled), without reading every one of its intents per snapshot.
//
// Counting them by state read the whole account's range of intents_account_state: O(intents)
// per dashboard page load (~10^6 index entries for a busy account). Two facts of the machine make
// the count cheap to keep, with no write on the create path:
//   - a state outside the live set is never left (machines/intent.machine.ts: such a state is
//     final or accepts only DETECTED, which stays), so its count only grows;
//   - each entry into one writes exactly one event named after it (intent.finalized,
//     intent.failed, intent.expired, intent.cancelled), in the transition's transaction.
// So the count as of an event position `seq` is the count at an earlier position plus the events
// of those types in between (an index range of events_account). Each store keeps the last count
// per account and mode in memory; a snapshot adds the events since, or counts again when there
// are too many of them (or none was kept). test/store/live-counts.test.ts checks the sum against
// a full count after random lifecycles on both engines, and pins the plans.
import type { IntentState, Mode } from '../domain/intent';
import { INTENT_STATES } from '../domain/intent';

export type StateCounts = Partial<Record<IntentState, number>>;

/**
 * How far back a kept count is still worth moving forward: reading an event position costs ~4
 * times counting an intent (bench/live-snapshot: 100k events since in 29-38 ms, 1.1M intents
 * counted in ~80 ms), so past a quarter of the kept total (and at least this many) count again:
 * a snapshot never costs more than the full count it replaces.
 */
export const MIN_EVENTS_SINCE = 50_000;
const COUNT_PER_EVENT = 4;
/** Accounts x modes kept (a count is small; an operator looks at a few accounts). */
const MAX_KEPT = 1_000;

/** The ended states (those outside `live`), and the event type that enters each. */
export function endedStates(live: readonly IntentState[]): { states: IntentState[]; eventTypes: string[] } {
  const states = INTENT_STATES.filter((s) => !live.includes(s));
  return { states, eventTypes: states.map((s) => `intent.${s}`) };
}

/** Add per-event-type counts (`intent.<state>`) to per-state counts. */
export function addEntries(counts: StateCounts, byType: ReadonlyArray<{ type: string; n: number }>, sign = 1): StateCounts {
  const out: StateCounts = { ...counts };
  for (const { type, n } of byType) {
    const state = type.slice('intent.'.length) as IntentState;
    out[state] = (out[state] ?? 0) + sign * n;
  }
  return out;
}

export interface EndedCounts {
  /** The kept count for this account and mode, if one is usable at `seq` (taken at or before it, not too far back). */
  usable(accountId: string, mode: Mode, seq: number): { seq: number; counts: StateCounts } | null;
  /** Keep the count as of `seq` (an older one never replaces a newer). */
  keep(accountId: string, mode: Mode, seq: number, counts: StateCounts): void;
}

export function createEndedCounts(): EndedCounts {
  const kept = new Map<string, { seq: number; counts: StateCounts }>();
  const key = (accountId: string, mode: Mode) => `${mode}:${accountId}`;
  return {
    usable(accountId, mode, seq) {
      const k = kept.get(key(accountId, mode));
      if (!k || k.seq > seq) return null;
      let total = 0;
      for (const n of Object.values(k.counts)) total += n ?? 0;
      return seq - k.seq <= Math.max(MIN_EVENTS_SINCE, total / COUNT_PER_EVENT) ? k : null;
    },
    keep(accountId, mode, seq, counts) {
      const k = key(accountId, mode);
      const prev = kept.get(k);
      if (prev && prev.seq > seq) return;
      if (!prev && kept.size >= MAX_KEPT) kept.clear();
      kept.set(k, { seq, counts });
    },
  };
}
