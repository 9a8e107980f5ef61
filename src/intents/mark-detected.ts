// The fulfiller reports it has seen the payment ("detected"): the first call sets detectedAt and emits
// intent.detected; later calls change nothing. The machine says where it is allowed.
import type { Caller } from '../domain/caller';
import { toWire, type PaymentIntentWire } from '../domain/intent';
import { judge } from '../../machines/judge';
import { ownedBy } from './load-intent';
import type { Services } from './services';

export async function markDetected(s: Services, caller: Caller, { id }: { id: string }): Promise<{ intent: PaymentIntentWire }> {
  ownedBy(caller, await s.intents.get(id), id);
  const intent = await s.runtime.write(async (tx) => {
    const cur = ownedBy(caller, await tx.get(id), id);
    const event = { type: 'DETECTED', at: tx.now } as const;
    // judge throws 409 where DETECTED never applies, and is false for a repeat (nothing to do).
    return judge(cur, event) ? (await tx.apply(cur, event, 'throw'))! : cur;
  });
  return { intent: toWire(intent) };
}
