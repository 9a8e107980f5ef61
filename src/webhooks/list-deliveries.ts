// GET /v1/webhooks: the account's deliveries in one mode, newest first, paged as /v1/events is:
// cursor `starting_after` (a delivery id), `hasMore`. The API validates limit (1..100) before calling.
import { invalidParam } from '../domain/errors';
import type { Mode } from '../domain/intent';
import type { Db } from '../store/db';
import { deliverySeq, listDeliveryRecords } from '../store/webhook-deliveries';
import { toDeliveryWire, type WebhookDeliveryWire } from './delivery-wire';

export interface ListDeliveriesInput {
  accountId: string;
  mode: Mode;
  limit: number;
  startingAfter?: string;
}

export interface ListDeliveriesResult {
  deliveries: WebhookDeliveryWire[];
  hasMore: boolean;
}

export function listDeliveries(db: Db, input: ListDeliveriesInput): ListDeliveriesResult {
  let before = Number.MAX_SAFE_INTEGER;
  if (input.startingAfter !== undefined) {
    const cursor = deliverySeq(db, input.startingAfter, input.accountId, input.mode);
    if (cursor === null) throw invalidParam('starting_after', `starting_after ${input.startingAfter} is not a webhook delivery of this account.`);
    before = cursor;
  }
  // One row more than asked tells whether another page exists.
  const rows = listDeliveryRecords(db, input.accountId, input.mode, before, input.limit + 1);
  return { deliveries: rows.slice(0, input.limit).map(toDeliveryWire), hasMore: rows.length > input.limit };
}
