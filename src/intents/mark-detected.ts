// The fulfiller reports it has seen the payment ("detected"): the first call sets detectedAt and emits
// intent.detected; later calls change nothing. Allowed in created, pending, dropped, confirmed, finalized.
import type { Caller } from '../domain/caller';
import { toWire, type IntentState, type PaymentIntentWire } from '../domain/intent';
import { invalidState } from '../../machines/judge';
import { ownedBy } from './load-intent';
import type { Services } from './services';

const ALLOWED: ReadonlySet<IntentState> = new Set(['created', 'pending', 'dropped', 'confirmed', 'finalized']);

export async function markDetected(s: Services, caller: Caller, id: string): Promise<{ intent: PaymentIntentWire }> {
  ownedBy(caller, s.intents.get(id), id);
  const intent = await s.runtime.write((tx) => {
    const cur = ownedBy(caller, tx.get(id), id);
    if (!ALLOWED.has(cur.state)) throw invalidState(cur);
    if (cur.detectedAt !== null) return cur;
    return tx.apply(cur, { type: 'DETECTED', at: tx.now }, 'throw')!;
  });
  return { intent: toWire(intent) };
}
