// A lifecycle move written to the intent's row, and the envelope of the events it emits: pure
// functions of the row, the machine's step and the write's time (used by runtime.ts).
import { newId } from '../domain/ids';
import { iso, toWire, type EventEnvelope, type EventType, type IntentState, type PaymentIntentWire } from '../domain/intent';
import type { StoredIntent } from '../store/intents';
import { MACHINE_VERSION, type IntentContext } from '../../machines/intent.machine';
import type { Emitted, Step } from './step';

/** The row's lifecycle fields from the machine's context. */
const lifecycleOf = (c: IntentContext) => ({
  txSignature: c.txSignature,
  retryRequired: c.retryRequired,
  pendingAtExpiry: c.pendingAtExpiry,
  failureReason: c.failureReason,
  detectedAt: c.detectedAt,
  confirmedAt: c.confirmedAt,
  finalizedAt: c.finalizedAt,
});

export function project(prev: StoredIntent, s: Step, at: number): StoredIntent {
  return {
    ...prev,
    state: s.snapshot.value as IntentState,
    ...lifecycleOf(s.snapshot.context),
    // Strictly increasing: PATCH uses updatedAt for optimistic concurrency.
    updatedAt: Math.max(at, prev.updatedAt + 1),
    snapshot: s.json,
    machineVersion: MACHINE_VERSION,
  };
}

export function envelope(type: EventType, intent: StoredIntent, at: number, wire: (i: StoredIntent) => PaymentIntentWire = toWire): EventEnvelope {
  return { eventId: newId('evt'), type, createdAt: iso(at), livemode: intent.mode === 'live', data: { intent: wire(intent) } };
}

/**
 * The intent an emitted event shows. A move that goes past a state in one step (a poller that
 * first sees a tx finalized emits confirmed, then finalized) shows that event as the machine had
 * the intent when it emitted it; every other event shows the row as written.
 */
export function asReported(e: Emitted, next: StoredIntent): StoredIntent {
  return e.reports === undefined ? next : { ...next, state: e.reports, ...lifecycleOf(e.context) };
}
