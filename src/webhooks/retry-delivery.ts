// POST /v1/webhooks/{id}/retry: replay a delivery's event as a NEW delivery row to the account's
// current endpoint URL, due now (the caller then wakes the dispatcher). The original row stays
// as it is, so the list keeps the history. Plan gating (pro) is the API's job, and so is the
// 202: the verb returns the new delivery, never a status.
import type { Owner } from '../domain/caller';
import { AppError } from '../domain/errors';
import { newId } from '../domain/ids';
import { toDeliveryWire, type WebhookDeliveryWire } from './delivery-wire';
import type { WebhookServices } from './services';

export async function retryDelivery(s: WebhookServices, owner: Owner, { id: deliveryId }: { id: string }): Promise<{ delivery: WebhookDeliveryWire }> {
  const now = (s.now ?? Date.now)();
  const id = newId('whd');
  const outcome = await s.deliveries.queueRetry({ id, deliveryId, accountId: owner.accountId, mode: owner.mode, now });
  // Another account's or mode's delivery is indistinguishable from a missing one.
  if (outcome === 'not_found') throw new AppError('webhook.not_found', `No webhook delivery ${deliveryId}`, { details: { delivery_id: deliveryId } });
  // No endpoint = no URL and no secret to sign with: refuse rather than queue a dead row.
  if (outcome === 'no_endpoint')
    throw new AppError('webhook.no_endpoint', `No ${owner.mode} webhook endpoint is set; set one before retrying`, {
      details: { delivery_id: deliveryId, reason: 'no_endpoint' },
    });
  return { delivery: toDeliveryWire((await s.deliveries.get(id))!) };
}
