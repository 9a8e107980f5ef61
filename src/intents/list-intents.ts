// List the caller's intents newest first, Stripe-style cursor: starting_after an intent id.
import type { Caller } from '../domain/caller';
import { invalidParam } from '../domain/errors';
import { INTENT_STATES, toWire, type IntentState, type PaymentIntentWire } from '../domain/intent';
import type { Services } from './services';

export interface ListIntentsInput {
  limit: number;
  startingAfter?: string;
  state?: string;
  reference?: string;
}

export function listIntents(s: Services, caller: Caller, q: ListIntentsInput): { intents: PaymentIntentWire[]; hasMore: boolean } {
  if (q.state !== undefined && !(INTENT_STATES as readonly string[]).includes(q.state)) {
    throw invalidParam('state', `state must be one of ${INTENT_STATES.join(', ')}.`);
  }
  let beforeSeq: number | undefined;
  if (q.startingAfter !== undefined) {
    const seq = s.intents.seqOf(q.startingAfter, caller.accountId, caller.mode);
    if (seq === null) throw invalidParam('starting_after', `No intent ${q.startingAfter} to start after.`);
    beforeSeq = seq;
  }
  const rows = s.intents.list({
    accountId: caller.accountId,
    mode: caller.mode,
    limit: q.limit + 1,
    beforeSeq,
    state: q.state as IntentState | undefined,
    reference: q.reference,
  });
  return { intents: rows.slice(0, q.limit).map(toWire), hasMore: rows.length > q.limit };
}
