// The one judge of "may this happen" (issue 16 item 1). Verbs, the runtime and the store never
// keep their own lists of state names: they ask the machine, through the row, whether an event
// applies (`canApply`), why not (`refusal`), or which states carry a tag (`statesTagged`).
// Pure: xstate and src/domain only; nothing here reads a clock or a database.
import { transition } from 'xstate';
import { AppError } from '../src/domain/errors';
import { INTENT_STATES, type FailureReason, type IntentRecord, type IntentState } from '../src/domain/intent';
import { INTENT_TAGS, intentMachine, type IntentContext, type IntentEvent, type IntentTag } from './intent.machine';

/** What the judge reads of an intent: its state, its lifecycle fields and its TTL. */
export type Judged = Pick<
  IntentRecord,
  | 'id' | 'chain' | 'state' | 'expiresAt' | 'txSignature' | 'retryRequired' | 'pendingAtExpiry' | 'failureReason'
  | 'detectedAt' | 'confirmedAt' | 'finalizedAt'
>;

/** The 409s a lifecycle move can be refused with (contract section 4). */
export type RefusalCode = 'intent.invalid_state' | 'intent.already_fulfilled' | 'intent.expired';

function contextOf(i: Judged): IntentContext {
  return {
    intentId: i.id,
    family: i.chain.startsWith('solana:') ? 'solana' : 'evm',
    txSignature: i.txSignature,
    retryRequired: i.retryRequired,
    pendingAtExpiry: i.pendingAtExpiry,
    failureReason: i.failureReason,
    detectedAt: i.detectedAt,
    confirmedAt: i.confirmedAt,
    finalizedAt: i.finalizedAt,
  };
}

/** The machine's snapshot for a row: the row is the state (architecture, turn 3). */
export function snapshotOf(i: Judged) {
  return intentMachine.resolveState({ value: i.state, context: contextOf(i) });
}

/** A fresh row in `state` on `chain`: no flags set, nothing detected. */
const blank = (state: IntentState, chain = ''): Judged => ({
  id: '', chain, state, expiresAt: 0, txSignature: null, retryRequired: false, pendingAtExpiry: false,
  failureReason: null, detectedAt: null, confirmedAt: null, finalizedAt: null,
});

// Tags belong to state nodes, not to context, so the sets are computed once from any context.
const TAGGED: ReadonlyMap<IntentTag, readonly IntentState[]> = new Map(
  INTENT_TAGS.map((tag) => [tag, INTENT_STATES.filter((state) => snapshotOf(blank(state)).hasTag(tag))]),
);

/** Every state that carries `tag`, in INTENT_STATES order (the store's SQL takes these). */
export function statesTagged(tag: IntentTag): readonly IntentState[] {
  return TAGGED.get(tag)!;
}

// The same sets for membership: hasTag runs for every live intent on each scan (boot, every 5 s).
const TAGGED_SETS: ReadonlyMap<IntentTag, ReadonlySet<IntentState>> = new Map([...TAGGED].map(([tag, states]) => [tag, new Set(states)]));

export function hasTag(i: { state: IntentState }, tag: IntentTag): boolean {
  return TAGGED_SETS.get(tag)!.has(i.state);
}

/**
 * Submit (and build, which asks the same question) past `expiresAt` is judged as if the
 * deadline had already fired: the sweep may simply not have run yet (contract: "submit on
 * expired, or past expiresAt, is 409 intent.expired"). Other events keep the row's state.
 */
function judgedSnapshot(i: Judged, event: IntentEvent) {
  const snap = snapshotOf(i);
  if (event.type !== 'SUBMIT' || event.at < i.expiresAt) return snap;
  const expire = { type: 'EXPIRE', at: i.expiresAt } as const;
  return snap.can(expire) ? transition(intentMachine, snap, expire)[0] : snap;
}

/**
 * Does the machine take `event` in any state for this chain's family? False means the event does
 * not exist for the family at all (simulating a drop on EVM: 422, not a 409 about the state).
 */
export function familyTakes(chain: string, event: IntentEvent): boolean {
  return INTENT_STATES.some((state) => snapshotOf(blank(state, chain)).can(event));
}

/** Would the machine take `event` from this row now (guards included)? */
export function canApply(i: Judged, event: IntentEvent): boolean {
  return judgedSnapshot(i, event).can(event);
}

/**
 * Why `event` is refused, or null when nothing is refused: the move applies, or it is a
 * once-only move that already happened (DETECTED again: answer with the intent unchanged).
 */
export function refusal(i: Judged, event: IntentEvent): RefusalCode | null {
  const snap = judgedSnapshot(i, event);
  if (snap.can(event)) return null;
  if (event.type === 'SUBMIT') {
    if (snap.hasTag('paid')) return 'intent.already_fulfilled';
    if (snap.matches('expired')) return 'intent.expired';
  }
  // The state takes this event, but a once-only guard has already been used.
  if (snapshotOf({ ...i, detectedAt: null }).can(event)) return null;
  return 'intent.invalid_state';
}

const MESSAGES: Record<RefusalCode, (i: Judged) => string> = {
  'intent.invalid_state': (i) => `This operation is not allowed for an intent in state ${i.state}.`,
  'intent.already_fulfilled': (i) => `Intent ${i.id} is already ${i.state}.`,
  'intent.expired': (i) => `Intent ${i.id} has expired.`,
};

/** The error envelope of a refusal: `details` always names the intent and its current state. */
export function refusalError(i: Judged, code: RefusalCode, opts: { message?: string; details?: Record<string, unknown> } = {}): AppError {
  const details: Record<string, unknown> = { intent_id: i.id, current_state: i.state, ...opts.details };
  if (code === 'intent.expired') details.expires_at = new Date(i.expiresAt).toISOString();
  return new AppError(code, opts.message ?? MESSAGES[code](i), { details });
}

/** 409 intent.invalid_state for `i` (a move the machine refuses, or a rule beside it). */
export function invalidState(i: Judged, message?: string, details?: Record<string, unknown>): AppError {
  return refusalError(i, 'intent.invalid_state', { message, details });
}

/** Throw the refusal of `event`, if any; true when the event applies, false for a repeat to ignore. */
export function judge(i: Judged, event: IntentEvent): boolean {
  if (canApply(i, event)) return true;
  const code = refusal(i, event);
  if (code !== null) throw refusalError(i, code);
  return false;
}

/** simulate's `targetState` values (test mode, contract section 4): each has a SIMULATE_ event. */
export const SIMULATE_TARGETS = ['confirmed', 'finalized', 'failed', 'expired', 'dropped'] as const satisfies readonly IntentState[];
export type SimulateTarget = (typeof SIMULATE_TARGETS)[number];

/** The event that forces `target` (failureReason only matters for failed). */
export function simulateEvent(target: SimulateTarget, at: number, reason: FailureReason): IntentEvent {
  switch (target) {
    case 'confirmed': return { type: 'SIMULATE_CONFIRMED', at };
    case 'finalized': return { type: 'SIMULATE_FINALIZED', at };
    case 'failed': return { type: 'SIMULATE_FAILED', at, reason };
    case 'expired': return { type: 'SIMULATE_EXPIRED', at };
    case 'dropped': return { type: 'SIMULATE_DROPPED', at };
  }
}
