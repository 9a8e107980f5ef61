// Read one intent of the caller's account and mode.
import type { Caller } from '../domain/caller';
import { toWire, type PaymentIntentWire } from '../domain/intent';
import { ownedBy } from './load-intent';
import type { Services } from './services';

export async function getIntent(s: Services, caller: Caller, input: { id: string }): Promise<{ intent: PaymentIntentWire }> {
  return { intent: toWire(ownedBy(caller, await s.intents.get(input.id), input.id)) };
}
