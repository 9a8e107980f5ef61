// GET /v1/events: the account's events in one mode, newest first, cursor `starting_after`
// (an event id, as Stripe). Each is the exact envelope that was (or will be) delivered.
import type { Owner } from '../domain/caller';
import { AppError } from '../domain/errors';
import type { EventEnvelope } from '../domain/intent';
import type { WebhookServices } from './services';

export interface ListEventsInput {
  /** Validated by the API: 1..100. */
  limit: number;
  startingAfter?: string;
}

export interface ListEventsResult {
  events: EventEnvelope[];
  hasMore: boolean;
}

export async function listEvents(s: WebhookServices, owner: Owner, input: ListEventsInput): Promise<ListEventsResult> {
  let before = Number.MAX_SAFE_INTEGER;
  if (input.startingAfter !== undefined) {
    const cursor = await s.events.seqOf(input.startingAfter, owner.accountId, owner.mode);
    if (cursor === null)
      throw new AppError('request.invalid_param', `starting_after ${input.startingAfter} is not an event of this account`, {
        param: 'starting_after',
      });
    before = cursor;
  }
  // One row more than asked tells whether another page exists.
  const rows = await s.events.listPayloads(owner.accountId, owner.mode, before, input.limit + 1);
  const hasMore = rows.length > input.limit;
  return { events: rows.slice(0, input.limit).map((p) => JSON.parse(p) as EventEnvelope), hasMore };
}
