// The lifecycle machine on its own: every allowed transition (target, emitted webhook types,
// resulting context), every forbidden move, JSON persistence round trips from every state, and
// the throwing defaults of its named side effects.
import { createActor, fromCallback } from 'xstate';
import { describe, expect, it } from 'vitest';
import { intentMachine, MACHINE_VERSION, type IntentContext, type IntentEventType } from '../../machines/intent.machine';
import { EVENT_TYPES, harness, reach, sampleEvent, STATES, type Family, type State } from '../support/machine';

const T = 1_700_000_099_000;

interface Allowed {
  from: State;
  event: IntentEventType;
  family?: Family;
  pendingAtExpiry?: boolean;
  to: State;
  emits: string[];
  ctx: Partial<IntentContext>;
}

// Written from contract section 4 (the authority on what should happen), not from the machine.
const ALLOWED: Allowed[] = [
  { from: 'created', event: 'SUBMIT', to: 'pending', emits: ['intent.pending'], ctx: { txSignature: 'sig-submit', retryRequired: false } },
  { from: 'created', event: 'CANCEL', to: 'cancelled', emits: ['intent.cancelled'], ctx: {} },
  { from: 'created', event: 'EXPIRE', to: 'expired', emits: ['intent.expired'], ctx: { retryRequired: false } },
  { from: 'created', event: 'DETECTED', to: 'created', emits: ['intent.detected'], ctx: { detectedAt: T } },
  { from: 'created', event: 'SIMULATE_CONFIRMED', to: 'confirmed', emits: ['intent.confirmed'], ctx: { confirmedAt: T, txSignature: null } },
  { from: 'created', event: 'SIMULATE_FAILED', to: 'failed', emits: ['intent.failed'], ctx: { failureReason: 'slippage' } },
  { from: 'created', event: 'SIMULATE_EXPIRED', to: 'expired', emits: ['intent.expired'], ctx: {} },

  { from: 'pending', event: 'EXPIRE', to: 'pending', emits: [], ctx: { pendingAtExpiry: true } },
  { from: 'pending', event: 'DETECTED', to: 'pending', emits: ['intent.detected'], ctx: { detectedAt: T } },
  { from: 'pending', event: 'CHAIN_CONFIRMED', to: 'confirmed', emits: ['intent.confirmed'], ctx: { confirmedAt: T, txSignature: 'sig-confirmed' } },
  { from: 'pending', event: 'CHAIN_FINALIZED', to: 'finalized', emits: ['intent.confirmed', 'intent.finalized'], ctx: { confirmedAt: T, finalizedAt: T, txSignature: 'sig-finalized' } },
  { from: 'pending', event: 'CHAIN_FAILED', to: 'failed', emits: ['intent.failed'], ctx: { failureReason: 'program_error', retryRequired: false } },
  { from: 'pending', event: 'CHAIN_DROPPED', to: 'dropped', emits: ['intent.retry_required'], ctx: { retryRequired: true, pendingAtExpiry: false } },
  { from: 'pending', event: 'CHAIN_DROPPED', pendingAtExpiry: true, to: 'expired', emits: ['intent.expired'], ctx: { retryRequired: false, pendingAtExpiry: true } },
  { from: 'pending', event: 'CHAIN_REORGED', to: 'pending', emits: ['intent.pending'], ctx: { txSignature: 'sig-submit' } },
  { from: 'pending', event: 'SIMULATE_CONFIRMED', to: 'confirmed', emits: ['intent.confirmed'], ctx: { confirmedAt: T, txSignature: 'sig-submit' } },
  { from: 'pending', event: 'SIMULATE_FAILED', to: 'failed', emits: ['intent.failed'], ctx: { failureReason: 'slippage' } },
  { from: 'pending', event: 'SIMULATE_EXPIRED', to: 'expired', emits: ['intent.expired'], ctx: {} },
  { from: 'pending', event: 'SIMULATE_DROPPED', family: 'solana', to: 'dropped', emits: ['intent.retry_required'], ctx: { retryRequired: true } },

  { from: 'dropped', event: 'SUBMIT', to: 'pending', emits: ['intent.pending'], ctx: { txSignature: 'sig-submit', retryRequired: false } },
  { from: 'dropped', event: 'EXPIRE', to: 'expired', emits: ['intent.expired'], ctx: { retryRequired: false } },
  { from: 'dropped', event: 'DETECTED', to: 'dropped', emits: ['intent.detected'], ctx: { detectedAt: T, retryRequired: true } },
  { from: 'dropped', event: 'SIMULATE_CONFIRMED', to: 'confirmed', emits: ['intent.confirmed'], ctx: { confirmedAt: T, retryRequired: false } },
  { from: 'dropped', event: 'SIMULATE_FAILED', to: 'failed', emits: ['intent.failed'], ctx: { failureReason: 'slippage', retryRequired: false } },
  { from: 'dropped', event: 'SIMULATE_EXPIRED', to: 'expired', emits: ['intent.expired'], ctx: { retryRequired: false } },

  { from: 'confirmed', event: 'DETECTED', to: 'confirmed', emits: ['intent.detected'], ctx: { detectedAt: T } },
  { from: 'confirmed', event: 'CHAIN_FINALIZED', to: 'finalized', emits: ['intent.finalized'], ctx: { finalizedAt: T, txSignature: 'sig-finalized' } },
  { from: 'confirmed', event: 'SIMULATE_FINALIZED', to: 'finalized', emits: ['intent.finalized'], ctx: { finalizedAt: T } },
  { from: 'confirmed', event: 'CHAIN_REORGED', to: 'pending', emits: ['intent.pending'], ctx: { confirmedAt: null, txSignature: 'sig-confirmed' } },

  { from: 'finalized', event: 'DETECTED', to: 'finalized', emits: ['intent.detected'], ctx: { detectedAt: T } },
];

const label = (a: Allowed) =>
  `${a.from} --${a.event}${a.family ? ` (${a.family})` : ''}${a.pendingAtExpiry ? ' (pendingAtExpiry)' : ''}--> ${a.to} [${a.emits.join(', ') || 'no event'}]`;

describe('allowed transitions (contract section 4)', () => {
  for (const a of ALLOWED) {
    it(label(a), () => {
      const families: Family[] = a.family ? [a.family] : ['evm', 'solana'];
      for (const family of families) {
        const h = reach(a.from, { family, pendingAtExpiry: a.pendingAtExpiry });
        const before = h.actor.getSnapshot().context;
        const event = sampleEvent(a.event, T);
        expect(h.actor.getSnapshot().can(event)).toBe(true);
        const emitted = h.send(event);
        const after = h.actor.getSnapshot();
        expect(after.value).toBe(a.to);
        expect(emitted).toEqual(a.emits);
        expect(after.context).toEqual({ ...before, ...a.ctx });
        expect(h.errors).toEqual([]);
        expect(after.status).toBe(['failed', 'expired', 'cancelled'].includes(a.to) ? 'done' : 'active');
      }
    });
  }

  it('pending and confirmed watch the chain; leaving them stops the watcher', () => {
    const h = harness({ intentId: 'pi_w' });
    h.send(sampleEvent('SUBMIT'));
    expect(h.watches).toEqual([{ intentId: 'pi_w', stage: 'pending', stopped: false }]);
    h.send(sampleEvent('CHAIN_CONFIRMED'));
    expect(h.watches.map((w) => [w.stage, w.stopped])).toEqual([['pending', true], ['confirmed', false]]);
    h.send(sampleEvent('CHAIN_REORGED'));
    expect(h.watches.map((w) => [w.stage, w.stopped])).toEqual([['pending', true], ['confirmed', true], ['pending', false]]);
    // A reorg while pending re-enters: the watcher restarts (idempotent by design).
    h.send(sampleEvent('CHAIN_REORGED'));
    expect(h.watches.map((w) => [w.stage, w.stopped])).toEqual([['pending', true], ['confirmed', true], ['pending', true], ['pending', false]]);
    h.send(sampleEvent('CHAIN_FINALIZED'));
    expect(h.watches.every((w) => w.stopped)).toBe(true);
  });

  it('failed defaults to revert when the event carries no reason', () => {
    const h = reach('created');
    h.send({ type: 'SIMULATE_FAILED', at: T, reason: 'revert' });
    expect(h.actor.getSnapshot().context.failureReason).toBe('revert');
  });
});

const isAllowed = (from: State, event: IntentEventType, family: Family, pendingAtExpiry: boolean, detected: boolean) =>
  !(event === 'DETECTED' && detected) &&
  ALLOWED.some(
    (a) => a.from === from && a.event === event && (!a.family || a.family === family) && (a.pendingAtExpiry === undefined || a.pendingAtExpiry === pendingAtExpiry || !a.pendingAtExpiry),
  );

describe('forbidden moves', () => {
  for (const state of STATES) {
    it(`from ${state}: every event outside the table is refused and changes nothing`, () => {
      let checked = 0;
      for (const family of ['evm', 'solana'] as Family[]) {
        for (const detected of [false, true]) {
          if (detected && ['failed', 'expired', 'cancelled'].includes(state)) continue;
          for (const event of EVENT_TYPES) {
            if (isAllowed(state, event, family, false, detected)) continue;
            const h = reach(state, { family, detected });
            const before = h.actor.getSnapshot();
            const e = sampleEvent(event, T);
            expect(before.can(e), `${state} ${family} detected=${detected} ${event}`).toBe(false);
            // A final-state actor is stopped (XState warns on sends); its `can` is the whole answer.
            if (before.status === 'done') {
              expect(['failed', 'expired', 'cancelled']).toContain(state);
              checked++;
              continue;
            }
            const emitted = h.send(e);
            expect(emitted).toEqual([]);
            expect(h.actor.getSnapshot().value).toBe(state);
            expect(h.actor.getSnapshot().context).toEqual(before.context);
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(0);
    });
  }

  it('SIMULATE_DROPPED is refused on EVM chains; DETECTED applies only once', () => {
    expect(reach('pending', { family: 'evm' }).actor.getSnapshot().can(sampleEvent('SIMULATE_DROPPED'))).toBe(false);
    expect(reach('pending', { family: 'solana' }).actor.getSnapshot().can(sampleEvent('SIMULATE_DROPPED'))).toBe(true);
    const h = reach('created');
    expect(h.send({ type: 'DETECTED', at: T })).toEqual(['intent.detected']);
    expect(h.send({ type: 'DETECTED', at: T + 5 })).toEqual([]);
    expect(h.actor.getSnapshot().context.detectedAt).toBe(T);
  });
});

describe('persistence round trip (JSON) from every state', () => {
  const variants: Array<{ state: State; family: Family; pendingAtExpiry?: boolean; detected?: boolean }> = [
    ...STATES.flatMap((state) => (['evm', 'solana'] as Family[]).map((family) => ({ state, family }))),
    { state: 'pending', family: 'solana', pendingAtExpiry: true },
    { state: 'confirmed', family: 'evm', detected: true },
    { state: 'dropped', family: 'solana', detected: true },
  ];
  for (const v of variants) {
    it(`${v.state} (${v.family}${v.pendingAtExpiry ? ', pendingAtExpiry' : ''}${v.detected ? ', detected' : ''})`, () => {
      const h = reach(v.state, v);
      const original = h.actor.getSnapshot();
      const json = JSON.stringify(h.actor.getPersistedSnapshot());
      const persisted = JSON.parse(json);
      // Plain JSON: a second trip is byte-identical, and it carries no functions or actor refs.
      expect(JSON.stringify(persisted)).toBe(json);
      h.actor.stop();

      const r = harness({ family: v.family, snapshot: persisted });
      const snap = r.actor.getSnapshot();
      expect(snap.value).toBe(original.value);
      expect(snap.context).toEqual(original.context);
      expect(snap.status).toBe(original.status);
      expect(JSON.stringify(r.actor.getPersistedSnapshot())).toBe(json);
      // The rehydrated actor accepts exactly what the original accepted.
      for (const event of EVENT_TYPES) {
        const e = sampleEvent(event, T);
        expect(snap.can(e), `${v.state} ${event}`).toBe(original.can(e));
      }
      // Invoked watchers restart on rehydrate (pending and confirmed only).
      const expectedWatch = v.state === 'pending' || v.state === 'confirmed' ? [v.state] : [];
      expect(r.watches.map((w) => w.stage)).toEqual(expectedWatch);
      expect(r.errors).toEqual([]);
      // And it keeps living: the next move from the table works after rehydration.
      const next = ALLOWED.find((a) => a.from === v.state && (!a.family || a.family === v.family) && !!a.pendingAtExpiry === !!v.pendingAtExpiry && !(a.event === 'DETECTED' && v.detected));
      if (next) {
        expect(r.send(sampleEvent(next.event, T))).toEqual(next.emits);
        expect(r.actor.getSnapshot().value).toBe(next.to);
      } else {
        expect(['failed', 'expired', 'cancelled']).toContain(v.state);
      }
    });
  }

  it('has a machine version to store beside each snapshot', () => {
    expect(Number.isInteger(MACHINE_VERSION) && MACHINE_VERSION >= 1).toBe(true);
  });
});

describe('named side effects default to throwing', () => {
  it('emit throws when not provided', () => {
    const errors: unknown[] = [];
    const a = createActor(intentMachine.provide({ actors: { watchChain: fromCallback(() => () => {}) } }), {
      input: { intentId: 'pi_x', family: 'evm' },
    });
    a.subscribe({ error: (e) => errors.push(e) });
    a.start();
    a.send({ type: 'CANCEL', at: T });
    expect(a.getSnapshot().status).toBe('error');
    expect(String(errors[0])).toMatch(/action "emit" must be provided/);
  });

  it('watchChain throws when not provided', () => {
    const errors: unknown[] = [];
    const a = createActor(intentMachine.provide({ actions: { emit: () => {} } }), { input: { intentId: 'pi_x', family: 'evm' } });
    a.subscribe({ error: (e) => errors.push(e) });
    a.start();
    a.send({ type: 'SUBMIT', at: T, txSignature: 'sig' });
    expect(a.getSnapshot().status).toBe('error');
    expect(String(errors[0])).toMatch(/actor "watchChain" must be provided/);
  });

  it('the unprovided machine still starts in created (no effect runs before an event)', () => {
    const a = createActor(intentMachine, { input: { intentId: 'pi_x', family: 'solana' } });
    a.start();
    expect(a.getSnapshot().value).toBe('created');
    expect(a.getSnapshot().status).toBe('active');
  });
});
