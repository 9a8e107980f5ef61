// The WebhookDelivery object of the API (seed 2.3), plus status, nextAttemptAt, lastError and
// createdAt so an integrator can see where a delivery stands. Times are ISO 8601 with ms or null.
import type { Db } from '../store/db';
import { iso } from '../domain/intent';

export interface WebhookDeliveryWire {
  id: string;
  eventId: string;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  responseStatus: number | null;
  attemptCount: number;
  lastAttemptedAt: string | null;
  /** When the next attempt is due; null once delivered or failed. */
  nextAttemptAt: string | null;
  lastError: string | null;
  deliveredAt: string | null;
  failedAt: string | null;
  createdAt: string;
}

export interface DeliveryRecord {
  seq: number;
  id: string;
  eventId: string;
  url: string;
  status: WebhookDeliveryWire['status'];
  responseStatus: number | null;
  attemptCount: number;
  lastAttemptedAt: number | null;
  nextAttemptAt: number;
  lastError: string | null;
  deliveredAt: number | null;
  failedAt: number | null;
  createdAt: number;
}

export const DELIVERY_COLUMNS = `seq, id, event_id AS eventId, url, status, response_status AS responseStatus,
  attempt_count AS attemptCount, last_attempted_at AS lastAttemptedAt, next_attempt_at AS nextAttemptAt,
  last_error AS lastError, delivered_at AS deliveredAt, failed_at AS failedAt, created_at AS createdAt`;

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export function toDeliveryWire(r: DeliveryRecord): WebhookDeliveryWire {
  return {
    id: r.id,
    eventId: r.eventId,
    url: r.url,
    status: r.status,
    responseStatus: r.responseStatus,
    attemptCount: r.attemptCount,
    lastAttemptedAt: isoOrNull(r.lastAttemptedAt),
    nextAttemptAt: r.status === 'pending' ? iso(r.nextAttemptAt) : null,
    lastError: r.lastError,
    deliveredAt: isoOrNull(r.deliveredAt),
    failedAt: isoOrNull(r.failedAt),
    createdAt: iso(r.createdAt),
  };
}

export function getDeliveryRecord(db: Db, id: string): DeliveryRecord | null {
  return db.sqlite.query<DeliveryRecord, [string]>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ?`).get(id);
}
