// The store never decides which states form a set ("live", "watching"): the caller hands it the
// machine's tag sets (machines/judge.ts statesTagged), and the store only writes them into SQL.
// They are inlined as literals, each checked against the domain's state names, so that SQLite
// can prove a query's condition matches a partial index (intents_live and the closed ones).
import { INTENT_STATES, type IntentState } from '../domain/intent';

function checked(states: readonly IntentState[]): readonly IntentState[] {
  if (states.length === 0) throw new Error('store: an empty state set');
  for (const s of states) {
    if (!(INTENT_STATES as readonly string[]).includes(s)) throw new Error(`store: unknown intent state ${JSON.stringify(s)}`);
  }
  return states;
}

/** `'a','b'`: the inside of an IN list (PostgreSQL's partial indexes, and lists not tied to an index on SQLite). */
export function stateList(states: readonly IntentState[]): string {
  return checked(states).map((s) => `'${s}'`).join(',');
}

/**
 * SQLite: `state = 'a' OR state = 'b' ...`, parenthesized; the very condition of intents_live
 * (schema.ts LIVE) when given the live states, which is how SQLite proves that index applies. Not
 * `state IN (...)`: the partial indexes' conditions are comparisons (migration 0016), and SQLite
 * matches a query's condition to an index's only when it is the same expression.
 */
export function stateIs(states: readonly IntentState[], column = 'state'): string {
  return `(${checked(states).map((s) => `${column} = '${s}'`).join(' OR ')})`;
}

/** SQLite: `state <> 'a' AND state <> 'b' ...`, parenthesized; schema.ts NOT_LIVE with the live states. */
export function stateIsNot(states: readonly IntentState[], column = 'state'): string {
  return `(${checked(states).map((s) => `${column} <> '${s}'`).join(' AND ')})`;
}
