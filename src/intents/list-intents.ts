// List intents newest first, Stripe-style cursor: starting_after an intent id. An API caller sees
// its own account and mode; the operator (the dashboard) sees every account's, narrowed by the
// account and mode it picked. One verb for both surfaces, so both page and filter alike.
import type { Caller, Operator } from '../domain/caller';
import { invalidParam } from '../domain/errors';
import { INTENT_STATES, toWire, type IntentState, type PaymentIntentWire } from '../domain/intent';
import type { Services } from './services';

export interface ListIntentsInput {
  limit: number;
  startingAfter?: string;
  state?: string;
  reference?: string;
}

/** What the operator sees of an intent: the wire object and whose it is. */
export type OperatorIntent = PaymentIntentWire & { accountId: string };

export interface ListIntentsResult<I = PaymentIntentWire> {
  intents: I[];
  hasMore: boolean;
}

export function listIntents(s: Services, who: Caller, q: ListIntentsInput): Promise<ListIntentsResult>;
export function listIntents(s: Services, who: Operator, q: ListIntentsInput): Promise<ListIntentsResult<OperatorIntent>>;
export async function listIntents(s: Services, who: Caller | Operator, q: ListIntentsInput): Promise<ListIntentsResult<PaymentIntentWire | OperatorIntent>> {
  if (q.state !== undefined && !(INTENT_STATES as readonly string[]).includes(q.state)) {
    throw invalidParam('state', `state must be one of ${INTENT_STATES.join(', ')}.`);
  }
  // A caller's account and mode are fixed by its key; the operator's are an optional filter.
  const { accountId, mode } = who;
  let beforeSeq: number | undefined;
  if (q.startingAfter !== undefined) {
    const seq = await s.intents.seqOf(q.startingAfter, accountId, mode);
    if (seq === null) throw invalidParam('starting_after', `No intent ${q.startingAfter} to start after.`);
    beforeSeq = seq;
  }
  const rows = await s.intents.list({
    accountId,
    mode,
    limit: q.limit + 1,
    beforeSeq,
    state: q.state as IntentState | undefined,
    reference: q.reference,
  });
  const page = rows.slice(0, q.limit);
  const intents = 'operator' in who ? page.map((r) => ({ ...toWire(r), accountId: r.accountId })) : page.map(toWire);
  return { intents, hasMore: rows.length > q.limit };
}
