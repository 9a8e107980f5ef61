// The judge against real actors: canApply from a row agrees with what a started actor in that
// state accepts (every state, event, family and flag), refusal names the contract's 409s, and
// the tag sets are the ones contract section 4 describes.
import { describe, expect, it } from 'vitest';
import { transition } from 'xstate';
import { intentMachine } from '../../machines/intent.machine';
import { INTENT_STATES } from '../../src/domain/intent';
import {
  canApply, familyTakes, judge, refusal, refusalError, SIMULATE_TARGETS, simulateEvent, snapshotOf, statesTagged, type Judged,
} from '../../machines/judge';
import { EVENT_TYPES, reach, sampleEvent, STATES, type Family, type State } from '../support/machine';

const EXPIRES = 2_000_000_000_000;

function rowOf(state: State, opts: { family: Family; pendingAtExpiry?: boolean; detected?: boolean }): Judged {
  const c = reach(state, opts).actor.getSnapshot().context;
  return {
    id: 'pi_judge', chain: opts.family === 'solana' ? 'solana:devnet' : 'eip155:84532', state, expiresAt: EXPIRES,
    txSignature: c.txSignature, retryRequired: c.retryRequired, pendingAtExpiry: c.pendingAtExpiry,
    failureReason: c.failureReason, detectedAt: c.detectedAt, confirmedAt: c.confirmedAt, finalizedAt: c.finalizedAt,
  };
}

describe('canApply reads the row the way a live actor would', () => {
  for (const state of STATES) {
    it(`from ${state}: every event, both families, with and without the flags`, () => {
      for (const family of ['evm', 'solana'] as Family[]) {
        for (const pendingAtExpiry of state === 'pending' ? [false, true] : [false]) {
          for (const detected of ['failed', 'expired', 'cancelled'].includes(state) ? [false] : [false, true]) {
            const opts = { family, pendingAtExpiry, detected };
            const row = rowOf(state, opts);
            for (const type of EVENT_TYPES) {
              const e = sampleEvent(type);
              expect(canApply(row, e), `${state} ${type} ${JSON.stringify(opts)}`).toBe(reach(state, opts).actor.getSnapshot().can(e));
            }
          }
        }
      }
    });
  }
});

describe('refusal', () => {
  const submit = (at: number) => ({ type: 'SUBMIT', at, txSignature: 'sig-new' }) as const;

  it('submit: payable states before the TTL pass; after it they are expired', () => {
    for (const s of ['created', 'dropped'] as const) {
      const row = rowOf(s, { family: 'solana' });
      expect(refusal(row, submit(EXPIRES - 1))).toBeNull();
      expect(canApply(row, submit(EXPIRES))).toBe(false);
      expect(refusal(row, submit(EXPIRES))).toBe('intent.expired');
    }
    expect(refusal(rowOf('expired', { family: 'evm' }), submit(0))).toBe('intent.expired');
  });

  it('submit: paid states are already fulfilled (before or after the TTL), others invalid', () => {
    for (const s of ['confirmed', 'finalized'] as const) {
      expect(refusal(rowOf(s, { family: 'evm' }), submit(0))).toBe('intent.already_fulfilled');
      expect(refusal(rowOf(s, { family: 'evm' }), submit(EXPIRES + 1))).toBe('intent.already_fulfilled');
    }
    for (const s of ['pending', 'failed', 'cancelled'] as const) {
      expect(refusal(rowOf(s, { family: 'evm' }), submit(0))).toBe('intent.invalid_state');
    }
  });

  it('the TTL matters to submit only (cancel and detected past it are the sweep\'s business)', () => {
    const row = rowOf('created', { family: 'evm' });
    expect(canApply(row, { type: 'CANCEL', at: EXPIRES + 1 })).toBe(true);
    expect(canApply(row, { type: 'DETECTED', at: EXPIRES + 1 })).toBe(true);
  });

  it('DETECTED a second time is no refusal (nothing to do); in a closed state it is invalid_state', () => {
    const again = rowOf('finalized', { family: 'evm', detected: true });
    expect(canApply(again, sampleEvent('DETECTED'))).toBe(false);
    expect(refusal(again, sampleEvent('DETECTED'))).toBeNull();
    expect(judge(again, sampleEvent('DETECTED'))).toBe(false);
    expect(refusal(rowOf('cancelled', { family: 'evm' }), sampleEvent('DETECTED'))).toBe('intent.invalid_state');
  });

  it('SIMULATE_DROPPED on EVM is a refusal the machine states (solana guard)', () => {
    expect(canApply(rowOf('pending', { family: 'solana' }), sampleEvent('SIMULATE_DROPPED'))).toBe(true);
    expect(refusal(rowOf('pending', { family: 'evm' }), sampleEvent('SIMULATE_DROPPED'))).toBe('intent.invalid_state');
  });

  it('the error names the intent and its state (and expires_at for expired)', () => {
    const row = rowOf('dropped', { family: 'evm' });
    expect(() => judge(row, submit(EXPIRES))).toThrow(
      expect.objectContaining({
        code: 'intent.expired',
        details: { intent_id: 'pi_judge', current_state: 'dropped', expires_at: new Date(EXPIRES).toISOString() },
      }),
    );
    expect(refusalError(row, 'intent.invalid_state').details).toEqual({ intent_id: 'pi_judge', current_state: 'dropped' });
  });
});

describe('tags (written from contract section 4, not from the machine)', () => {
  const expected: Record<string, State[]> = {
    // Boot rehydrates these and detection watches their receivers: everything not terminal.
    live: ['created', 'pending', 'confirmed', 'dropped'],
    // "TTL elapsed" rows.
    deadline: ['created', 'pending', 'dropped'],
    // "submit accepted and broadcast" rows.
    payable: ['created', 'dropped'],
    // The states with "chain:" rows.
    watching: ['pending', 'confirmed'],
    paid: ['confirmed', 'finalized'],
    // "Refund: from confirmed or finalized only".
    refundable: ['confirmed', 'finalized'],
    // "a refund that expired, was cancelled or failed unpaid no longer blocks a new one".
    closed: ['failed', 'expired', 'cancelled'],
    terminal: ['finalized', 'failed', 'expired', 'cancelled'],
  };
  for (const [tag, states] of Object.entries(expected)) {
    it(`${tag}: ${states.join(', ')}`, () => {
      expect([...statesTagged(tag as never)].sort()).toEqual([...states].sort());
    });
  }
});

describe('simulate targets', () => {
  it('each targetState names the state its SIMULATE_ event reaches from some state', () => {
    for (const target of SIMULATE_TARGETS) {
      const e = simulateEvent(target, 1, 'slippage');
      expect(e.type).toBe(`SIMULATE_${target.toUpperCase()}`);
      const reached = STATES.filter((from) => {
        const snap = snapshotOf(rowOf(from, { family: 'solana' }));
        return snap.can(e) && transition(intentMachine, snap, e)[0].value === target;
      });
      expect(reached.length, target).toBeGreaterThan(0);
    }
  });

  it('familyTakes: a drop exists on Solana only; every other simulate target on both families', () => {
    for (const target of SIMULATE_TARGETS) {
      const e = simulateEvent(target, 1, 'revert');
      expect(familyTakes('solana:devnet', e), target).toBe(true);
      expect(familyTakes('eip155:84532', e), target).toBe(target !== 'dropped');
    }
  });
});

describe('state names', () => {
  it("the domain's INTENT_STATES are exactly the machine's states", () => {
    expect(Object.keys(intentMachine.states).sort()).toEqual([...INTENT_STATES].sort());
  });
});
