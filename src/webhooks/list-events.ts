// GET /v1/events: the account's events in one mode, newest first, cursor `starting_after`
// (an event id, as Stripe). Each is the exact envelope that was (or will be) delivered.
import { AppError } from '../domain/errors';
import type { EventEnvelope, Mode } from '../domain/intent';
import type { Repos } from '../store/repos';

export interface ListEventsInput {
  accountId: string;
  mode: Mode;
  /** Validated by the API: 1..100. */
  limit: number;
  startingAfter?: string;
}

export interface ListEventsResult {
  events: EventEnvelope[];
  hasMore: boolean;
}

export function listEvents(repos: Pick<Repos, 'events'>, input: ListEventsInput): ListEventsResult {
  let before = Number.MAX_SAFE_INTEGER;
  if (input.startingAfter !== undefined) {
    const cursor = repos.events.seqOf(input.startingAfter, input.accountId, input.mode);
    if (cursor === null)
      throw new AppError('request.invalid_param', `starting_after ${input.startingAfter} is not an event of this account`, {
        param: 'starting_after',
      });
    before = cursor;
  }
  // One row more than asked tells whether another page exists.
  const rows = repos.events.listPayloads(input.accountId, input.mode, before, input.limit + 1);
  const hasMore = rows.length > input.limit;
  return { events: rows.slice(0, input.limit).map((p) => JSON.parse(p) as EventEnvelope), hasMore };
}
