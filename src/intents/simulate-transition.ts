// Test mode only: force a lifecycle transition (seed 4.7 plus the finalized extension).
import type { Caller } from '../domain/caller';
import { AppError, invalidParam } from '../domain/errors';
import { FAILURE_REASONS, toWire, type FailureReason, type PaymentIntentWire } from '../domain/intent';
import { familyTakes, SIMULATE_TARGETS as TARGETS, simulateEvent, type SimulateTarget } from '../../machines/judge';
import { ownedBy } from './load-intent';
import type { Services } from './services';

const SIMULATE_REASONS: readonly string[] = ['insufficient_balance', 'revert', 'slippage'];

export async function simulateTransition(
  s: Services,
  caller: Caller,
  id: string,
  body: { targetState?: unknown; failureReason?: unknown },
): Promise<{ intent: PaymentIntentWire }> {
  if (caller.mode !== 'test') {
    throw new AppError('auth.test_key_required', 'Simulate is available with a test key only.');
  }
  const target = body.targetState;
  if (typeof target !== 'string' || !(TARGETS as readonly string[]).includes(target)) {
    throw invalidParam('targetState', `targetState must be one of ${TARGETS.join(', ')}.`);
  }
  let reason: FailureReason = 'revert';
  // failureReason is read only for targetState failed (and ignored otherwise, as the seed says).
  if (target === 'failed' && body.failureReason !== undefined && body.failureReason !== null) {
    if (typeof body.failureReason !== 'string' || !SIMULATE_REASONS.includes(body.failureReason)) {
      throw invalidParam('failureReason', `failureReason must be one of ${SIMULATE_REASONS.join(', ')}.`);
    }
    reason = body.failureReason as (typeof FAILURE_REASONS)[number];
  }
  const eventAt = (at: number) => simulateEvent(target as SimulateTarget, at, reason);
  const existing = ownedBy(caller, s.intents.get(id), id);
  // An event the machine takes in no state of this chain family (a drop on EVM) is a 422 about
  // the chain, not a 409 about the intent's state.
  if (!familyTakes(existing.chain, eventAt(0))) {
    throw new AppError('simulate.unsupported_for_chain', `Simulating ${target} is not supported on ${existing.chain}.`, {
      param: 'targetState',
      details: { chain: existing.chain },
    });
  }
  const intent = await s.runtime.write((tx) => tx.apply(ownedBy(caller, tx.get(id), id), eventAt(tx.now), 'throw')!);
  return { intent: toWire(intent) };
}
