// The outbox: an event row and one delivery row per configured endpoint, written inside the
// transition's transaction. The webhook dispatcher sends them after commit; nothing is lost.
import type { Database } from 'bun:sqlite';
import { newId } from '../domain/ids';
import { envelopeJson } from '../domain/intent-json';
import type { EventEnvelope, Mode } from '../domain/intent';
import type { Awaitable, Sync } from './awaitable';

export interface OutboxEvent {
  envelope: EventEnvelope;
  accountId: string;
  mode: Mode;
  /** null for a payment.unmatched event whose payment names no intent. */
  intentId: string | null;
  createdAt: number;
}

export interface Outbox {
  /** Insert the event and its delivery row (if the account has an endpoint). Returns true if a delivery was queued. */
  append(e: OutboxEvent): Awaitable<boolean>;
}

export function createOutbox(sqlite: Database): Sync<Outbox> {
  const insertEvent = sqlite.prepare(
    'INSERT INTO events (id, account_id, mode, intent_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  // The delivery row takes its URL from the account's endpoint, read in the same transaction: no
  // row when none is configured. A read then an INSERT ... VALUES, not one INSERT ... SELECT: SQLite
  // runs an INSERT with a SELECT source with a statement journal (each page it touches copied
  // first, ~20k instructions per create once the create has no savepoint); a plain INSERT has none.
  const endpointUrl = sqlite.prepare<{ url: string }, [string, string]>('SELECT url FROM webhook_endpoints WHERE account_id = ? AND mode = ?');
  const insertDelivery = sqlite.prepare(
    `INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, created_at)
     VALUES (?1, ?2, ?3, ?4, ?5, 'pending', 0, ?6, ?6)`,
  );
  return {
    append(e) {
      const payload = envelopeJson(e.envelope);
      insertEvent.run(e.envelope.eventId, e.accountId, e.mode, e.intentId, e.envelope.type, payload, e.createdAt);
      const endpoint = endpointUrl.get(e.accountId, e.mode);
      if (endpoint === null) return false;
      insertDelivery.run(newId('whd'), e.envelope.eventId, e.accountId, e.mode, endpoint.url, e.createdAt);
      return true;
    },
  };
}
