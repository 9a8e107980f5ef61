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
  // The delivery row takes its URL from the account's endpoint in the same statement: no row
  // (changes = 0) when none is configured. One statement per event instead of a read and a write.
  const insertDelivery = sqlite.prepare(
    `INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, created_at)
     SELECT ?1, ?2, account_id, mode, url, 'pending', 0, ?3, ?3 FROM webhook_endpoints WHERE account_id = ?4 AND mode = ?5`,
  );
  return {
    append(e) {
      const payload = envelopeJson(e.envelope);
      insertEvent.run(e.envelope.eventId, e.accountId, e.mode, e.intentId, e.envelope.type, payload, e.createdAt);
      return insertDelivery.run(newId('whd'), e.envelope.eventId, e.createdAt, e.accountId, e.mode).changes > 0;
    },
  };
}
