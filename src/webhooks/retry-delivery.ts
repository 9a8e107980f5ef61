// POST /v1/webhooks/{id}/retry: replay a delivery's event as a NEW delivery row to the account's
// current endpoint URL, due now (the caller then wakes the dispatcher). The original row stays
// as it is, so the list keeps the history. Plan gating (pro) is the API's job.
import { AppError } from '../domain/errors';
import { newId } from '../domain/ids';
import type { Mode } from '../domain/intent';
import type { Repos } from '../store/repos';
import { toDeliveryWire, type WebhookDeliveryWire } from './delivery-wire';

export interface RetryDeliveryInput {
  accountId: string;
  mode: Mode;
  deliveryId: string;
}

export function retryDelivery(repos: Pick<Repos, 'deliveries'>, input: RetryDeliveryInput, deps: { now?: () => number } = {}): WebhookDeliveryWire {
  const now = (deps.now ?? Date.now)();
  const id = newId('whd');
  const outcome = repos.deliveries.queueRetry({ id, deliveryId: input.deliveryId, accountId: input.accountId, mode: input.mode, now });
  // Another account's or mode's delivery is indistinguishable from a missing one.
  if (outcome === 'not_found')
    throw new AppError('webhook.not_found', `No webhook delivery ${input.deliveryId}`, { details: { delivery_id: input.deliveryId } });
  // No endpoint = no URL and no secret to sign with: refuse rather than queue a dead row.
  if (outcome === 'no_endpoint')
    throw new AppError('webhook.no_endpoint', `No ${input.mode} webhook endpoint is set; set one before retrying`, {
      details: { delivery_id: input.deliveryId, reason: 'no_endpoint' },
    });
  return toDeliveryWire(repos.deliveries.get(id)!);
}
