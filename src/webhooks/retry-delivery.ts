// POST /v1/webhooks/{id}/retry: replay a delivery's event as a NEW delivery row to the account's
// current endpoint URL, due now (the caller then wakes the dispatcher). The original row stays
// as it is, so the list keeps the history. Plan gating (pro) is the API's job.
import { AppError } from '../domain/errors';
import { newId } from '../domain/ids';
import type { Mode } from '../domain/intent';
import type { Db } from '../store/db';
import { toDeliveryWire, getDeliveryRecord, type WebhookDeliveryWire } from './delivery-wire';
import { getEndpoint } from './endpoints';

export interface RetryDeliveryInput {
  accountId: string;
  mode: Mode;
  deliveryId: string;
}

export function retryDelivery(db: Db, input: RetryDeliveryInput, deps: { now?: () => number } = {}): WebhookDeliveryWire {
  const now = (deps.now ?? Date.now)();
  const id = newId('whd');
  db.sqlite
    .transaction(() => {
      const original = db.sqlite
        .query<{ eventId: string }, [string, string, string]>(
          'SELECT event_id AS eventId FROM webhook_deliveries WHERE id = ? AND account_id = ? AND mode = ?',
        )
        .get(input.deliveryId, input.accountId, input.mode);
      // Another account's or mode's delivery is indistinguishable from a missing one.
      if (!original) throw new AppError('webhook.not_found', `No webhook delivery ${input.deliveryId}`, { details: { delivery_id: input.deliveryId } });
      const endpoint = getEndpoint(db, input.accountId, input.mode);
      // No endpoint = no URL and no secret to sign with: refuse rather than queue a dead row.
      if (!endpoint)
        throw new AppError('webhook.no_endpoint', `No ${input.mode} webhook endpoint is set; set one before retrying`, {
          details: { delivery_id: input.deliveryId, reason: 'no_endpoint' },
        });
      db.sqlite
        .query(
          `INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, lease_until, created_at)
           VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, NULL, ?)`,
        )
        .run(id, original.eventId, input.accountId, input.mode, endpoint.url, now, now);
    })
    .immediate();
  return toDeliveryWire(getDeliveryRecord(db, id)!);
}
