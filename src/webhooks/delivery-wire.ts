// The WebhookDelivery object of the API (seed 2.3), plus status, nextAttemptAt, lastError and
// createdAt so an integrator can see where a delivery stands. Times are ISO 8601 with ms or null.
// Never shows credentials, and at most a short excerpt of what the receiver answered.
import { iso } from '../domain/intent';
import type { DeliveryRecord } from '../store/webhook-deliveries';

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

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** Longest lastError shown: enough for "HTTP 500: <a short excerpt of the body>", no more. */
export const LAST_ERROR_CHARS = 120;

/** The URL without any user:password@ (rows written before credentials were refused). */
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.username === '' && u.password === '') return raw;
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return raw.replace(/\/\/[^/@\s]*@/, '//');
  }
}

/** lastError as shown: credentials in any URL removed, control characters dropped, truncated. */
export function showLastError(e: string | null): string | null {
  if (e === null) return null;
  const noCreds = e.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1');
  const clean = [...noCreds].map((c) => (c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127 ? ' ' : c)).join('');
  return clean.length > LAST_ERROR_CHARS ? `${clean.slice(0, LAST_ERROR_CHARS - 1)}…` : clean;
}

export function toDeliveryWire(r: DeliveryRecord): WebhookDeliveryWire {
  return {
    id: r.id,
    eventId: r.eventId,
    url: redactUrl(r.url),
    status: r.status,
    responseStatus: r.responseStatus,
    attemptCount: r.attemptCount,
    lastAttemptedAt: isoOrNull(r.lastAttemptedAt),
    nextAttemptAt: r.status === 'pending' ? iso(r.nextAttemptAt) : null,
    lastError: showLastError(r.lastError),
    deliveredAt: isoOrNull(r.deliveredAt),
    failedAt: isoOrNull(r.failedAt),
    createdAt: iso(r.createdAt),
  };
}
