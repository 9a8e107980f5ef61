// The outbox on PostgreSQL, as ../outbox.ts: the event row and one delivery row per configured
// endpoint, written by the caller's query handle (the transition's transaction), in ONE statement.
import { newId } from '../../domain/ids';
import { envelopeJson } from '../../domain/intent-json';
import type { Outbox } from '../outbox';
import { type Async, type Pg } from './sql';

// The event insert reads pg_current_xact_id() in a subquery evaluated first, so the transaction
// holds an xid BEFORE events.seq is drawn from its sequence: the live feed's horizon
// (live-events.ts) relies on every drawn seq belonging to a transaction with an xid.
// The delivery takes its URL from the account's endpoint in the same statement: no row (count 0)
// when none is configured.
const APPEND = `WITH ev AS (
    INSERT INTO events (id, account_id, mode, intent_id, type, payload, created_at)
    SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::bigint FROM (SELECT pg_current_xact_id() OFFSET 0) AS xact
    RETURNING id
  )
  INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, created_at)
  SELECT $8::text, ev.id, w.account_id, w.mode, w.url, 'pending', 0, $7::bigint, $7::bigint
    FROM ev, webhook_endpoints w WHERE w.account_id = $2::text AND w.mode = $3::text`;

export function createPgOutbox(q: Pg): Async<Outbox> {
  return {
    async append(e) {
      const r = (await q.unsafe(APPEND, [
        e.envelope.eventId, e.accountId, e.mode, e.intentId, e.envelope.type, envelopeJson(e.envelope), e.createdAt, newId('whd'),
      ])) as unknown as { count: number };
      return r.count > 0;
    },
  };
}
