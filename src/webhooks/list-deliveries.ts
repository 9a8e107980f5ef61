// GET /v1/webhooks: the account's recent deliveries in one mode, newest first.
// The API validates limit (1..100, default 20) before calling.
import type { Mode } from '../domain/intent';
import type { Db } from '../store/db';
import { DELIVERY_COLUMNS, toDeliveryWire, type DeliveryRecord, type WebhookDeliveryWire } from './delivery-wire';

export interface ListDeliveriesInput {
  accountId: string;
  mode: Mode;
  limit: number;
}

export function listDeliveries(db: Db, input: ListDeliveriesInput): WebhookDeliveryWire[] {
  // seq is insertion order: newest first without relying on equal millisecond timestamps.
  return db.sqlite
    .query<DeliveryRecord, [string, string, number]>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE account_id = ? AND mode = ? ORDER BY seq DESC LIMIT ?`,
    )
    .all(input.accountId, input.mode, input.limit)
    .map(toDeliveryWire);
}
