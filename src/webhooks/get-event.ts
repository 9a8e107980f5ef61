// GET /v1/events/{id}: one event's envelope, scoped to the key's account and mode.
import type { Owner } from '../domain/caller';
import { AppError } from '../domain/errors';
import type { EventEnvelope } from '../domain/intent';
import type { WebhookServices } from './services';

export async function getEvent(s: WebhookServices, owner: Owner, { id }: { id: string }): Promise<EventEnvelope> {
  const payload = await s.events.payload(id, owner.accountId, owner.mode);
  // Another account's event answers exactly like a missing one (never reveal it exists).
  if (payload === null) throw new AppError('event.not_found', `No event ${id}`, { details: { event_id: id } });
  return JSON.parse(payload) as EventEnvelope;
}
