// Drive the pure intent machine with collecting implementations of its named side effects.
import { createActor, fromCallback, type Actor } from 'xstate';
import type { EventType } from '../../src/domain/intent';
import { intentMachine, type IntentEvent, type IntentEventType } from '../../machines/intent.machine';

export type Family = 'solana' | 'evm';

export const AT = 1_700_000_000_000;

/** One sample of every event the machine knows, with `at` growing so assigns are visible. */
export function sampleEvent(type: IntentEventType, at = AT + 1000): IntentEvent {
  switch (type) {
    case 'SUBMIT':
      return { type, at, txSignature: 'sig-submit' };
    case 'CHAIN_CONFIRMED':
      return { type, at, txSignature: 'sig-confirmed' };
    case 'CHAIN_FINALIZED':
      return { type, at, txSignature: 'sig-finalized' };
    case 'CHAIN_FAILED':
      return { type, at, reason: 'program_error' };
    case 'SIMULATE_FAILED':
      return { type, at, reason: 'slippage' };
    default:
      return { type, at } as IntentEvent;
  }
}

export const EVENT_TYPES: IntentEventType[] = [
  'SUBMIT', 'CANCEL', 'EXPIRE', 'DETECTED', 'CHAIN_CONFIRMED', 'CHAIN_FINALIZED', 'CHAIN_FAILED', 'CHAIN_DROPPED',
  'CHAIN_REORGED', 'SIMULATE_CONFIRMED', 'SIMULATE_FINALIZED', 'SIMULATE_FAILED', 'SIMULATE_EXPIRED', 'SIMULATE_DROPPED',
];

export const STATES = ['created', 'pending', 'confirmed', 'finalized', 'failed', 'expired', 'cancelled', 'dropped'] as const;
export type State = (typeof STATES)[number];

/** Events (from created) that reach each state. */
export const PATHS: Record<State, IntentEventType[]> = {
  created: [],
  pending: ['SUBMIT'],
  dropped: ['SUBMIT', 'CHAIN_DROPPED'],
  confirmed: ['SUBMIT', 'CHAIN_CONFIRMED'],
  finalized: ['SUBMIT', 'CHAIN_CONFIRMED', 'CHAIN_FINALIZED'],
  failed: ['SUBMIT', 'CHAIN_FAILED'],
  expired: ['EXPIRE'],
  cancelled: ['CANCEL'],
};

export interface Harness {
  actor: Actor<typeof intentMachine>;
  emitted: EventType[];
  watches: Array<{ intentId: string; stage: 'pending' | 'confirmed'; stopped: boolean }>;
  errors: unknown[];
  /** Send and return what this one event emitted. */
  send(e: IntentEvent): EventType[];
}

export function providedMachine(emitted: EventType[], watches: Harness['watches']) {
  return intentMachine.provide({
    actions: { emit: (_a, params) => void emitted.push(params.type) },
    actors: {
      watchChain: fromCallback(({ input }: { input: { intentId: string; stage: 'pending' | 'confirmed' } }) => {
        const w = { ...input, stopped: false };
        watches.push(w);
        return () => {
          w.stopped = true;
        };
      }),
    },
  });
}

export function harness(opts: { family?: Family; snapshot?: unknown; intentId?: string } = {}): Harness {
  const emitted: EventType[] = [];
  const watches: Harness['watches'] = [];
  const errors: unknown[] = [];
  const actor = createActor(providedMachine(emitted, watches), {
    input: { intentId: opts.intentId ?? 'pi_test', family: opts.family ?? 'evm' },
    ...(opts.snapshot ? { snapshot: opts.snapshot as never } : {}),
  });
  actor.subscribe({ error: (e) => errors.push(e) });
  actor.start();
  return {
    actor,
    emitted,
    watches,
    errors,
    send(e) {
      const before = emitted.length;
      actor.send(e);
      return emitted.slice(before);
    },
  };
}

/** A started actor in `state`, reached by real events; variants add pendingAtExpiry / detectedAt. */
export function reach(state: State, opts: { family?: Family; pendingAtExpiry?: boolean; detected?: boolean } = {}): Harness {
  const h = harness({ family: opts.family });
  let at = AT;
  for (const t of PATHS[state]) {
    if (opts.pendingAtExpiry && t !== 'SUBMIT' && h.actor.getSnapshot().value === 'pending') {
      h.send({ type: 'EXPIRE', at: (at += 10) });
    }
    h.send(sampleEvent(t, (at += 10)));
  }
  if (opts.pendingAtExpiry && h.actor.getSnapshot().value === 'pending' && !h.actor.getSnapshot().context.pendingAtExpiry) {
    h.send({ type: 'EXPIRE', at: (at += 10) });
  }
  if (opts.detected) h.send({ type: 'DETECTED', at: (at += 10) });
  const snap = h.actor.getSnapshot();
  if (snap.value !== state) throw new Error(`reach(${state}) ended in ${String(snap.value)}`);
  if (opts.pendingAtExpiry && !snap.context.pendingAtExpiry) throw new Error('pendingAtExpiry not set');
  if (opts.detected && snap.context.detectedAt === null) throw new Error('detectedAt not set');
  h.emitted.length = 0;
  return h;
}
