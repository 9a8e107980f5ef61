// The outbox: an event row and one delivery row per configured endpoint, written inside the
// transition's transaction. The webhook dispatcher sends them after commit; nothing is lost.
import type { Database } from 'bun:sqlite';
import { newId } from '../domain/ids';
import type { EventEnvelope, Mode } from '../domain/intent';

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
  append(e: OutboxEvent): boolean;
}

export function createOutbox(sqlite: Database): Outbox {
  const insertEvent = sqlite.prepare(
    'INSERT INTO events (id, account_id, mode, intent_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const endpoint = sqlite.prepare('SELECT url FROM webhook_endpoints WHERE account_id = ? AND mode = ?');
  const insertDelivery = sqlite.prepare(
    `INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
  );
  return {
    append(e) {
      const payload = JSON.stringify(e.envelope);
      insertEvent.run(e.envelope.eventId, e.accountId, e.mode, e.intentId, e.envelope.type, payload, e.createdAt);
      const ep = endpoint.get(e.accountId, e.mode) as { url: string } | null;
      if (!ep) return false;
      insertDelivery.run(newId('whd'), e.envelope.eventId, e.accountId, e.mode, ep.url, e.createdAt, e.createdAt);
      return true;
    },
  };
}
