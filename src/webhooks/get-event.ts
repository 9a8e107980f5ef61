// GET /v1/events/{id}: one event's envelope, scoped to the key's account and mode.
import { AppError } from '../domain/errors';
import type { EventEnvelope, Mode } from '../domain/intent';
import type { Repos } from '../store/repos';

export interface GetEventInput {
  accountId: string;
  mode: Mode;
  eventId: string;
}

export function getEvent(repos: Pick<Repos, 'events'>, input: GetEventInput): EventEnvelope {
  const payload = repos.events.payload(input.eventId, input.accountId, input.mode);
  // Another account's event answers exactly like a missing one (never reveal it exists).
  if (payload === null) throw new AppError('event.not_found', `No event ${input.eventId}`, { details: { event_id: input.eventId } });
  return JSON.parse(payload) as EventEnvelope;
}
