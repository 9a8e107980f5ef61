// Test mode only: force a lifecycle transition (seed 4.7 plus the finalized extension).
import type { Caller } from '../domain/caller';
import { AppError } from '../domain/errors';
import { toWire, type FailureReason, type PaymentIntentWire } from '../domain/intent';
import { familyTakes, simulateEvent, type SimulateTarget } from '../../machines/judge';
import { ownedBy } from './load-intent';
import type { Services } from './services';

/** The body as the edge's schema admits it: targetState one of SIMULATE_TARGETS, an optional reason. */
export interface SimulateTransitionInput {
  id: string;
  targetState: SimulateTarget;
  /** Read only for targetState failed (ignored otherwise, as the seed says); default revert. */
  failureReason?: Exclude<FailureReason, 'program_error'>;
}

export async function simulateTransition(s: Services, caller: Caller, input: SimulateTransitionInput): Promise<{ intent: PaymentIntentWire }> {
  if (caller.mode !== 'test') {
    throw new AppError('auth.test_key_required', 'Simulate is available with a test key only.');
  }
  const { id, targetState: target } = input;
  const reason: FailureReason = target === 'failed' ? (input.failureReason ?? 'revert') : 'revert';
  const eventAt = (at: number) => simulateEvent(target, at, reason);
  const existing = ownedBy(caller, await s.intents.get(id), id);
  // An event the machine takes in no state of this chain family (a drop on EVM) is a 422 about
  // the chain, not a 409 about the intent's state.
  if (!familyTakes(existing.chain, eventAt(0))) {
    throw new AppError('simulate.unsupported_for_chain', `Simulating ${target} is not supported on ${existing.chain}.`, {
      param: 'targetState',
      details: { chain: existing.chain },
    });
  }
  const intent = await s.runtime.write(async (tx) => (await tx.apply(ownedBy(caller, await tx.get(id), id), eventAt(tx.now), 'throw'))!);
  return { intent: toWire(intent) };
}
