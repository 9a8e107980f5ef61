// Read one intent of the caller's account and mode.
import type { Caller } from '../domain/caller';
import { toWire, type PaymentIntentWire } from '../domain/intent';
import { ownedBy } from './load-intent';
import type { Services } from './services';

export function getIntent(s: Services, caller: Caller, input: { id: string }): { intent: PaymentIntentWire } {
  return { intent: toWire(ownedBy(caller, s.intents.get(input.id), input.id)) };
}
