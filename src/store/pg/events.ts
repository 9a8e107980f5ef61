// Event rows on PostgreSQL as the read side sees them, as ../events.ts. Listing pages by seq,
// newest first: like any list, a page shows what was committed when it was read (an event that
// commits later with a lower seq, from a concurrent transaction, appears on a later read of the
// first page, not on pages already walked). The live feed needs more: see live-events.ts.
import type { Mode } from '../../domain/intent';
import type { EventRepo, EventTimelineRow } from '../events';
import { type Async, first, num, numbers, type Pg, rows } from './sql';

export async function getEventPayload(q: Pg, eventId: string, accountId: string, mode: Mode): Promise<string | null> {
  return (await first<{ payload: string }>(q, 'SELECT payload FROM events WHERE id = $1 AND account_id = $2 AND mode = $3', [eventId, accountId, mode]))
    ?.payload ?? null;
}

export async function eventSeq(q: Pg, eventId: string, accountId: string, mode: Mode): Promise<number | null> {
  const r = await first<{ seq: string }>(q, 'SELECT seq FROM events WHERE id = $1 AND account_id = $2 AND mode = $3', [eventId, accountId, mode]);
  return r ? num(r.seq) : null;
}

export async function listEventPayloads(q: Pg, accountId: string, mode: Mode, beforeSeq: number, limit: number): Promise<string[]> {
  const list = await rows<{ payload: string }>(
    q,
    'SELECT payload FROM events WHERE account_id = $1 AND mode = $2 AND seq < $3 ORDER BY seq DESC LIMIT $4',
    [accountId, mode, beforeSeq, limit],
  );
  return list.map((r) => r.payload);
}

/** An intent's events, oldest first, with delivery counts, as ../events.ts (the index: test/store/pg/event-timeline.test.ts). */
export const PG_TIMELINE_SQL = `SELECT e.id, e.type, e.created_at AS "createdAt", e.payload,
        (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries,
        (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'delivered') AS delivered
   FROM events e WHERE e.intent_id = $1 ORDER BY e.seq`;

export async function intentEventTimeline(q: Pg, intentId: string): Promise<EventTimelineRow[]> {
  const list = await rows(q, PG_TIMELINE_SQL, [intentId]);
  return numbers<EventTimelineRow>(list, ['createdAt', 'deliveries', 'delivered']);
}

export function createPgEventRepo(q: Pg): Async<EventRepo> {
  return {
    payload: (eventId, accountId, mode) => getEventPayload(q, eventId, accountId, mode),
    seqOf: (eventId, accountId, mode) => eventSeq(q, eventId, accountId, mode),
    listPayloads: (accountId, mode, beforeSeq, limit) => listEventPayloads(q, accountId, mode, beforeSeq, limit),
    timeline: (intentId) => intentEventTimeline(q, intentId),
  };
}
