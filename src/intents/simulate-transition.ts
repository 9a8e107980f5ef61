// Test mode only: force a lifecycle transition (seed 4.7 plus the finalized extension).
import type { Caller } from '../domain/caller';
import { AppError, invalidParam } from '../domain/errors';
import { FAILURE_REASONS, toWire, type FailureReason, type PaymentIntentWire } from '../domain/intent';
import type { IntentEvent } from '../../machines/intent.machine';
import { ownedBy } from './load-intent';
import type { Services } from './services';

const TARGETS = ['confirmed', 'finalized', 'failed', 'expired', 'dropped'] as const;
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
  const existing = ownedBy(caller, s.intents.get(id), id);
  if (target === 'dropped' && !existing.chain.startsWith('solana:')) {
    throw new AppError('simulate.unsupported_for_chain', 'Simulating a dropped transaction is only supported on the Solana family.', {
      param: 'targetState',
      details: { chain: existing.chain },
    });
  }
  const intent = await s.runtime.write((tx) => {
    const at = tx.now;
    const event: IntentEvent = {
      confirmed: { type: 'SIMULATE_CONFIRMED', at } as const,
      finalized: { type: 'SIMULATE_FINALIZED', at } as const,
      failed: { type: 'SIMULATE_FAILED', at, reason } as const,
      expired: { type: 'SIMULATE_EXPIRED', at } as const,
      dropped: { type: 'SIMULATE_DROPPED', at } as const,
    }[target as (typeof TARGETS)[number]];
    return tx.apply(ownedBy(caller, tx.get(id), id), event, 'throw')!;
  });
  return { intent: toWire(intent) };
}
