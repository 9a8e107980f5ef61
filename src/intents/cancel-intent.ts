// Cancel: only from created (the machine refuses anything else with 409 intent.invalid_state),
// and never while a transaction for it is being broadcast (it may land).
import type { Caller } from '../domain/caller';
import { toWire, type PaymentIntentWire } from '../domain/intent';
import { ownedBy } from './load-intent';
import { inProgress } from './record-submission';
import type { Services } from './services';

export async function cancelIntent(s: Services, caller: Caller, { id }: { id: string }): Promise<{ intent: PaymentIntentWire }> {
  ownedBy(caller, await s.intents.get(id), id);
  const intent = await s.runtime.write(async (tx) => {
    const cur = ownedBy(caller, await tx.get(id), id);
    if (await tx.repos.submissions.hasSending(id)) throw inProgress(id);
    return (await tx.apply(cur, { type: 'CANCEL', at: tx.now }, 'throw'))!;
  });
  return { intent: toWire(intent) };
}
