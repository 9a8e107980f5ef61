// Webhook delivery rows as the API, the dashboard and metrics read them, and the one write
// outside the dispatcher: a retry queued as a new row. The dispatcher's own statements are in
// webhook-dispatch.ts; the outbox and replays insert rows in outbox.ts and event-replay.ts.
import type { Mode } from '../domain/intent';
import type { Db } from './db';

export interface DeliveryRecord {
  seq: number;
  id: string;
  eventId: string;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  responseStatus: number | null;
  attemptCount: number;
  lastAttemptedAt: number | null;
  nextAttemptAt: number;
  lastError: string | null;
  deliveredAt: number | null;
  failedAt: number | null;
  createdAt: number;
}

/** A delivery as the operator's list shows it: with its owner and its event. */
export interface DeliveryListRow extends DeliveryRecord {
  accountId: string;
  mode: Mode;
  eventType: string | null;
  intentId: string | null;
}

export interface DeliveryFilter {
  status?: DeliveryRecord['status'];
  accountId?: string;
  /** Older than this seq (next page). */
  beforeSeq?: number;
}

const columns = (t: string) => `${t}seq, ${t}id, ${t}event_id AS eventId, ${t}url, ${t}status, ${t}response_status AS responseStatus,
  ${t}attempt_count AS attemptCount, ${t}last_attempted_at AS lastAttemptedAt, ${t}next_attempt_at AS nextAttemptAt,
  ${t}last_error AS lastError, ${t}delivered_at AS deliveredAt, ${t}failed_at AS failedAt, ${t}created_at AS createdAt`;

export function getDeliveryRecord(db: Db, id: string): DeliveryRecord | null {
  return db.sqlite.query<DeliveryRecord, [string]>(`SELECT ${columns('')} FROM webhook_deliveries WHERE id = ?`).get(id);
}

/**
 * An account's deliveries in one mode older than `beforeSeq`, newest first (seq is insertion
 * order: no tie on equal ms).
 */
export function listDeliveryRecords(db: Db, accountId: string, mode: Mode, beforeSeq: number, limit: number): DeliveryRecord[] {
  return db.sqlite
    .query<DeliveryRecord, [string, string, number, number]>(
      `SELECT ${columns('')} FROM webhook_deliveries WHERE account_id = ? AND mode = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
    )
    .all(accountId, mode, beforeSeq, limit);
}

/** The seq of an account's delivery in one mode (a page cursor), or null when it is not theirs. */
export function deliverySeq(db: Db, id: string, accountId: string, mode: Mode): number | null {
  return (
    db.sqlite
      .query<{ seq: number }, [string, string, string]>('SELECT seq FROM webhook_deliveries WHERE id = ? AND account_id = ? AND mode = ?')
      .get(id, accountId, mode)?.seq ?? null
  );
}

/** Every account's deliveries, newest first, filtered (the operator's list); at most `limit`. */
export function listAllDeliveryRows(db: Db, f: DeliveryFilter, limit: number): DeliveryListRow[] {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (f.status) {
    where.push('d.status = ?');
    args.push(f.status);
  }
  if (f.accountId) {
    where.push('d.account_id = ?');
    args.push(f.accountId);
  }
  if (f.beforeSeq !== undefined) {
    where.push('d.seq < ?');
    args.push(f.beforeSeq);
  }
  return db.sqlite
    .query<DeliveryListRow, (string | number)[]>(
      `SELECT ${columns('d.')}, d.account_id AS accountId, d.mode AS mode, e.type AS eventType, e.intent_id AS intentId
         FROM webhook_deliveries d LEFT JOIN events e ON e.id = d.event_id
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY d.seq DESC LIMIT ?`,
    )
    .all(...args, limit);
}

export function deliveryOwner(db: Db, id: string): { accountId: string; mode: Mode } | null {
  return db.sqlite
    .query<{ accountId: string; mode: Mode }, [string]>('SELECT account_id AS accountId, mode FROM webhook_deliveries WHERE id = ?')
    .get(id);
}

/** Deliveries waiting to be sent (the metrics backlog gauge). */
export function countPendingDeliveries(db: Db): number {
  return db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'").get()?.n ?? 0;
}

/**
 * Queue delivery `id` of the event of delivery `deliveryId` (if it belongs to this account and
 * mode) to the account's current endpoint URL, due `now`. One transaction: the endpoint read and
 * the insert see the same state. Returns why not, when not.
 */
export function queueDeliveryRetry(
  db: Db,
  input: { id: string; deliveryId: string; accountId: string; mode: Mode; now: number },
): 'queued' | 'not_found' | 'no_endpoint' {
  const { id, accountId, mode, now } = input;
  return db.sqlite
    .transaction(() => {
      const original = db.sqlite
        .query<{ eventId: string }, [string, string, string]>(
          'SELECT event_id AS eventId FROM webhook_deliveries WHERE id = ? AND account_id = ? AND mode = ?',
        )
        .get(input.deliveryId, accountId, mode);
      if (!original) return 'not_found' as const;
      const endpoint = db.sqlite
        .query<{ url: string }, [string, string]>('SELECT url FROM webhook_endpoints WHERE account_id = ? AND mode = ?')
        .get(accountId, mode);
      if (!endpoint) return 'no_endpoint' as const;
      db.sqlite
        .query(
          `INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, lease_until, created_at)
           VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, NULL, ?)`,
        )
        .run(id, original.eventId, accountId, mode, endpoint.url, now, now);
      return 'queued' as const;
    })
    .immediate();
}
