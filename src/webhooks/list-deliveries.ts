// GET /v1/webhooks: the account's recent deliveries in one mode, newest first.
// The API validates limit (1..100, default 20) before calling.
import type { Mode } from '../domain/intent';
import type { Db } from '../store/db';
import { listDeliveryRecords } from '../store/webhook-deliveries';
import { toDeliveryWire, type WebhookDeliveryWire } from './delivery-wire';

export interface ListDeliveriesInput {
  accountId: string;
  mode: Mode;
  limit: number;
}

export function listDeliveries(db: Db, input: ListDeliveriesInput): WebhookDeliveryWire[] {
  return listDeliveryRecords(db, input.accountId, input.mode, input.limit).map(toDeliveryWire);
}
