// Webhook deliveries newest first, paged as /v1/events is: cursor `starting_after` (a delivery
// id), `hasMore`. GET /v1/webhooks lists the caller's account and mode; the operator (the
// dashboard) every account's, narrowed by account, mode and status: one verb for both surfaces.
// The API validates limit (1..100) before calling.
import { invalidParam } from '../domain/errors';
import type { Mode } from '../domain/intent';
import type { Repos } from '../store/repos';
import type { DeliveryRecord } from '../store/webhook-deliveries';
import { toDeliveryWire, type WebhookDeliveryWire } from './delivery-wire';

export interface ListDeliveriesInput {
  accountId: string;
  mode: Mode;
  limit: number;
  startingAfter?: string;
}

/** The operator's view: every account unless narrowed. */
export interface OperatorDeliveriesInput {
  operator: true;
  accountId?: string;
  mode?: Mode;
  status?: DeliveryRecord['status'];
  limit: number;
  startingAfter?: string;
}

/** What the operator sees of a delivery: the API's object, whose it is, and its event. */
export type OperatorDelivery = WebhookDeliveryWire & { accountId: string; mode: Mode; eventType: string | null; intentId: string | null };

export interface ListDeliveriesResult<D = WebhookDeliveryWire> {
  deliveries: D[];
  hasMore: boolean;
}

export function listDeliveries(repos: Pick<Repos, 'deliveries'>, input: ListDeliveriesInput): ListDeliveriesResult;
export function listDeliveries(repos: Pick<Repos, 'deliveries'>, input: OperatorDeliveriesInput): ListDeliveriesResult<OperatorDelivery>;
export function listDeliveries(
  repos: Pick<Repos, 'deliveries'>,
  input: ListDeliveriesInput | OperatorDeliveriesInput,
): ListDeliveriesResult<WebhookDeliveryWire | OperatorDelivery> {
  let beforeSeq: number | undefined;
  if (input.startingAfter !== undefined) {
    const cursor = repos.deliveries.seqOf(input.startingAfter, input.accountId, input.mode);
    if (cursor === null) throw invalidParam('starting_after', `starting_after ${input.startingAfter} is not a webhook delivery of this account.`);
    beforeSeq = cursor;
  }
  const status = 'operator' in input ? input.status : undefined;
  // One row more than asked tells whether another page exists.
  const rows = repos.deliveries.list({ accountId: input.accountId, mode: input.mode, status, beforeSeq }, input.limit + 1);
  const page = rows.slice(0, input.limit);
  const deliveries =
    'operator' in input
      ? page.map((r) => ({ ...toDeliveryWire(r), accountId: r.accountId, mode: r.mode, eventType: r.eventType, intentId: r.intentId }))
      : page.map(toDeliveryWire);
  return { deliveries, hasMore: rows.length > input.limit };
}
