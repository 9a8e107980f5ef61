// Cancel: only from created (the machine refuses anything else with 409 intent.invalid_state).
import type { Caller } from '../domain/caller';
import { toWire, type PaymentIntentWire } from '../domain/intent';
import { ownedBy } from './load-intent';
import type { Services } from './services';

export async function cancelIntent(s: Services, caller: Caller, id: string): Promise<{ intent: PaymentIntentWire }> {
  ownedBy(caller, s.intents.get(id), id);
  const intent = await s.runtime.write((tx) => tx.apply(ownedBy(caller, tx.get(id), id), { type: 'CANCEL', at: tx.now }, 'throw')!);
  return { intent: toWire(intent) };
}
