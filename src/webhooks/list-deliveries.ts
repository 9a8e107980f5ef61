// Webhook deliveries newest first, paged as /v1/events is: cursor `starting_after` (a delivery
// id), `hasMore`. GET /v1/webhooks lists the caller's account and mode; the operator (the
// dashboard) every account's, narrowed by account and mode: one verb for both surfaces, as
// listIntents is. The API validates limit (1..100) before calling.
import type { Operator, Owner } from '../domain/caller';
import { invalidParam } from '../domain/errors';
import type { Mode } from '../domain/intent';
import type { DeliveryRecord } from '../store/webhook-deliveries';
import { toDeliveryWire, type WebhookDeliveryWire } from './delivery-wire';
import type { WebhookServices } from './services';

export interface ListDeliveriesInput {
  limit: number;
  startingAfter?: string;
  /** The dashboard's filter; the API has none. */
  status?: DeliveryRecord['status'];
}

/** What the operator sees of a delivery: the API's object, whose it is, and its event. */
export type OperatorDelivery = WebhookDeliveryWire & { accountId: string; mode: Mode; eventType: string | null; intentId: string | null };

export interface ListDeliveriesResult<D = WebhookDeliveryWire> {
  deliveries: D[];
  hasMore: boolean;
}

export function listDeliveries(s: WebhookServices, who: Owner, q: ListDeliveriesInput): Promise<ListDeliveriesResult>;
export function listDeliveries(s: WebhookServices, who: Operator, q: ListDeliveriesInput): Promise<ListDeliveriesResult<OperatorDelivery>>;
export async function listDeliveries(s: WebhookServices, who: Owner | Operator, q: ListDeliveriesInput): Promise<ListDeliveriesResult<WebhookDeliveryWire | OperatorDelivery>> {
  // An owner's account and mode are fixed; the operator's are an optional filter.
  const { accountId, mode } = who;
  let beforeSeq: number | undefined;
  if (q.startingAfter !== undefined) {
    const cursor = await s.deliveries.seqOf(q.startingAfter, accountId, mode);
    if (cursor === null) throw invalidParam('starting_after', `starting_after ${q.startingAfter} is not a webhook delivery of this account.`);
    beforeSeq = cursor;
  }
  // One row more than asked tells whether another page exists.
  const rows = await s.deliveries.list({ accountId, mode, status: q.status, beforeSeq }, q.limit + 1);
  const page = rows.slice(0, q.limit);
  const deliveries =
    'operator' in who
      ? page.map((r) => ({ ...toDeliveryWire(r), accountId: r.accountId, mode: r.mode, eventType: r.eventType, intentId: r.intentId }))
      : page.map(toDeliveryWire);
  return { deliveries, hasMore: rows.length > q.limit };
}
