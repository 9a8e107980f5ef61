// The store never decides which states form a set ("live", "watching"): the caller hands it the
// machine's tag sets (machines/judge.ts statesTagged), and the store only writes them into SQL.
// They are inlined as literals, each checked against the domain's state names, so that SQLite
// can prove a query's `state IN (...)` matches the partial index intents_live.
import { INTENT_STATES, type IntentState } from '../domain/intent';

export function stateList(states: readonly IntentState[]): string {
  if (states.length === 0) throw new Error('store: an empty state set');
  for (const s of states) {
    if (!(INTENT_STATES as readonly string[]).includes(s)) throw new Error(`store: unknown intent state ${JSON.stringify(s)}`);
  }
  return states.map((s) => `'${s}'`).join(',');
}
