// Event rows (the outbox's first half): each is the exact envelope that was or will be
// delivered, readable by its account and mode, and by the operator along an intent's timeline.
import type { Mode } from '../domain/intent';
import type { Db } from './db';
import type { Awaitable, Sync } from './awaitable';

/** The stored envelope (JSON text) of one event of this account and mode, or null. */
export function getEventPayload(db: Db, eventId: string, accountId: string, mode: Mode): string | null {
  return (
    db.sqlite
      .query<{ payload: string }, [string, string, string]>('SELECT payload FROM events WHERE id = ? AND account_id = ? AND mode = ?')
      .get(eventId, accountId, mode)?.payload ?? null
  );
}

/** The insertion position of one event of this account and mode (a list cursor), or null. */
export function eventSeq(db: Db, eventId: string, accountId: string, mode: Mode): number | null {
  return (
    db.sqlite
      .query<{ seq: number }, [string, string, string]>('SELECT seq FROM events WHERE id = ? AND account_id = ? AND mode = ?')
      .get(eventId, accountId, mode)?.seq ?? null
  );
}

/** Envelopes (JSON text) of this account and mode older than `beforeSeq`, newest first. */
export function listEventPayloads(db: Db, accountId: string, mode: Mode, beforeSeq: number, limit: number): string[] {
  return db.sqlite
    .query<{ payload: string }, [string, string, number, number]>(
      'SELECT payload FROM events WHERE account_id = ? AND mode = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
    )
    .all(accountId, mode, beforeSeq, limit)
    .map((r) => r.payload);
}

export interface EventTimelineRow {
  id: string;
  type: string;
  createdAt: number;
  payload: string;
  deliveries: number;
  delivered: number;
}

/**
 * An intent's events, oldest first, with how many deliveries each has and how many landed. Each
 * count finds the event's deliveries through webhook_deliveries_event (test/store/event-timeline.test.ts).
 */
export const TIMELINE_SQL = `SELECT e.id, e.type, e.created_at AS createdAt, e.payload,
        (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries,
        (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'delivered') AS delivered
   FROM events e WHERE e.intent_id = ? ORDER BY e.seq`;

export function intentEventTimeline(db: Db, intentId: string): EventTimelineRow[] {
  return db.sqlite.query<EventTimelineRow, [string]>(TIMELINE_SQL).all(intentId);
}

/** The events aggregate as the read side sees it: envelopes (as delivered) and an intent's timeline. */
export interface EventRepo {
  payload(eventId: string, accountId: string, mode: Mode): Awaitable<string | null>;
  seqOf(eventId: string, accountId: string, mode: Mode): Awaitable<number | null>;
  listPayloads(accountId: string, mode: Mode, beforeSeq: number, limit: number): Awaitable<string[]>;
  timeline(intentId: string): Awaitable<EventTimelineRow[]>;
}

export function createEventRepo(db: Db): Sync<EventRepo> {
  return {
    payload: (eventId, accountId, mode) => getEventPayload(db, eventId, accountId, mode),
    seqOf: (eventId, accountId, mode) => eventSeq(db, eventId, accountId, mode),
    listPayloads: (accountId, mode, beforeSeq, limit) => listEventPayloads(db, accountId, mode, beforeSeq, limit),
    timeline: (intentId) => intentEventTimeline(db, intentId),
  };
}
